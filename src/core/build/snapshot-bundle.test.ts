/**
 * A build's files are read once, by its analysis (the project's snapshot): the module graph and the
 * bundler resolve and load from it. Over a kept Bundler (as `platform dev` keeps one) and a kept file
 * system: an edit after a build shows in the next build's output, a deleted or renamed file is seen,
 * the bundle is made from the texts the analysis read (not read again), and what the snapshot does not
 * list (node_modules) still comes from the file system.
 */
import * as esbuild from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { baseApp, CLIENT } from '../analyze/__fixtures__/base-app';
import { analyzeProject, TypeCheckSession } from '../analyze';
import { snapshotStat } from '../project';
import { MemoryFileSystem } from '../fs';
import { compileProject, type BuildOutcome } from './build';
import { Bundler } from '../bundle';

const library = nodeLibrary();
const bundler = new Bundler(esbuild, library);
afterAll(() => bundler.dispose());

const SHARED = 'src/shared/text.ts';
const compiler = { esbuild, library, typecheck: new TypeCheckSession(library), bundler };
const build = (fs: MemoryFileSystem) => compileProject(fs, compiler, { targets: ['client', 'server'], typecheck: false });
const text = (outcome: BuildOutcome, path: string) => new TextDecoder().decode(outcome.files?.get(path));
const errors = (outcome: BuildOutcome) => outcome.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code);

describe('a build reads the files once, through its snapshot', () => {
  it('sees an edit, a deletion and a rename in the next build of the same file system', async () => {
    const fs = new MemoryFileSystem(baseApp());
    const first = await build(fs);
    expect(errors(first)).toEqual([]);
    expect(text(first, 'server/index.js')).not.toContain('edited-marker-1');

    fs.write(SHARED, `export function clean(text: string): string {\n  return text.trim() + 'edited-marker-1';\n}\n`);
    const edited = await build(fs);
    expect(errors(edited)).toEqual([]);
    expect(text(edited, 'server/index.js')).toContain('edited-marker-1');
    expect(text(edited, 'client/app.js')).toContain('edited-marker-1');

    fs.write(SHARED, `export function clean(text: string): string {\n  return text.trim() + 'edited-marker-2';\n}\n`);
    const again = await build(fs);
    expect(text(again, 'server/index.js')).toContain('edited-marker-2');
    expect(text(again, 'server/index.js')).not.toContain('edited-marker-1');

    // Deleted: its importers no longer resolve.
    const kept = (await fs.readText(SHARED))!;
    fs.delete(SHARED);
    const deleted = await build(fs);
    expect(deleted.files).toBeUndefined();
    expect(errors(deleted)).toContain('DG1204');

    // Renamed, its importers changed with it: the new path resolves, with its text.
    fs.write('src/shared/clean.ts', kept.replace('edited-marker-2', 'renamed-marker'));
    for (const path of ['src/server/index.ts', 'src/client/main.tsx']) fs.write(path, (await fs.readText(path))!.replace("'../shared/text'", "'../shared/clean'"));
    const renamed = await build(fs);
    expect(errors(renamed)).toEqual([]);
    expect(text(renamed, 'server/index.js')).toContain('renamed-marker');
    expect(text(renamed, 'client/app.js')).toContain('renamed-marker');

    // And back: a file that comes back under its old path is found again.
    fs.delete('src/shared/clean.ts');
    fs.write(SHARED, kept.replace('edited-marker-2', 'back-marker'));
    for (const path of ['src/server/index.ts', 'src/client/main.tsx']) fs.write(path, (await fs.readText(path))!.replace("'../shared/clean'", "'../shared/text'"));
    const back = await build(fs);
    expect(errors(back)).toEqual([]);
    expect(text(back, 'server/index.js')).toContain('back-marker');
  });

  it('bundles the texts the analysis read, not the files as they are by the time esbuild loads them', async () => {
    const fs = new MemoryFileSystem(baseApp());
    const analysis = await analyzeProject(fs, { library, typecheck: false });
    expect(analysis.project?.snapshot?.texts.get(SHARED)).toBe(await fs.readText(SHARED));
    // A save after the analysis: the next build sees it; this one bundles what was analysed.
    fs.write(SHARED, `export function clean(text: string): string {\n  return 'saved-after-analysis';\n}\n`);
    const bundled = await bundler.bundle(analysis.project!, ['server']);
    const server = new TextDecoder().decode(bundled.files.get('server/index.js'));
    expect(server).not.toContain('saved-after-analysis');
    expect(server).toContain('trim');
  });

  it('answers paths it lists, and leaves node_modules and dot-folders to the file system', async () => {
    const fs = new MemoryFileSystem({ ...baseApp(), 'node_modules/tiny/package.json': '{"name":"tiny","main":"index.js"}', 'node_modules/tiny/index.js': 'export const tiny = "tiny-package-marker";\n' });
    fs.write('package.json', JSON.stringify({ name: 'app', dependencies: { tiny: '1.0.0' } }));
    fs.write('src/client/main.tsx', `import { tiny } from 'tiny';\n${CLIENT}\nconsole.log(tiny);\n`);
    const analysis = await analyzeProject(fs, { library, typecheck: false });
    const snapshot = analysis.project!.snapshot!;
    expect(snapshotStat(snapshot, SHARED)).toBe('file');
    expect(snapshotStat(snapshot, 'src/shared')).toBe('directory');
    expect(snapshotStat(snapshot, 'src/shared/text')).toBeUndefined();
    expect(snapshotStat(snapshot, 'node_modules/tiny/index.js')).toBe('unlisted');
    expect(snapshotStat(snapshot, '.platform/types/app.d.ts')).toBe('unlisted');
    const outcome = await build(fs);
    expect(errors(outcome)).toEqual([]);
    expect(text(outcome, 'client/app.js')).toContain('tiny-package-marker');
  });
});
