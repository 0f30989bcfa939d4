/**
 * The preview build's client kept after a server-only edit (BundleReuse): the client is not bundled
 * again when only server files changed, and is when a shared file, a package, the manifest or the
 * file set changed, or when the previous build failed. Over the real compiler (native esbuild, a
 * kept Bundler as the playground's worker has) and the todo templates' files.
 */
import * as esbuild from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { templateFiles } from '../../control-plane/fixtures';
import type { Project } from '../analyze/project';
import { MemoryFileSystem } from '../fs';
import { compileProject, type BuildOutcome } from './build';
import { Bundler, type BuildTarget, type BundleResult, type ProjectBundler } from './bundle';
import { BundleReuse } from './bundle-reuse';
import { TypeCheckSession } from './typecheck';

const library = nodeLibrary();
const typecheck = new TypeCheckSession(library);

/** A kept Bundler that notes which targets each build asked for. */
class CountingBundler implements ProjectBundler {
  readonly bundler = new Bundler(esbuild, library);
  readonly asked: BuildTarget[][] = [];
  bundle(project: Project, targets: readonly BuildTarget[] = ['client', 'server', 'test']): Promise<BundleResult> {
    this.asked.push([...targets]);
    return this.bundler.bundle(project, targets);
  }
  dispose(): Promise<void> {
    return this.bundler.dispose();
  }
}

const bundler = new CountingBundler();
afterAll(() => bundler.dispose());

const template = templateFiles;

/** `files` with `path`'s text passed through `change`. */
const edit = (files: Record<string, string>, path: string, change: (text: string) => string): Record<string, string> => {
  const text = files[path];
  if (text === undefined) throw new Error(`no ${path}`);
  const changed = change(text);
  if (changed === text) throw new Error(`the edit of ${path} changed nothing`);
  return { ...files, [path]: changed };
};

/** A preview build through `reuse`; `previewMode`: the bundler's preview mode, as the playground's worker asks for. */
async function preview(reuse: BundleReuse, files: Record<string, string>, previewMode = false): Promise<{ outcome: BuildOutcome; reused: boolean; targets: BuildTarget[][]; reason?: string }> {
  const before = bundler.asked.length;
  const { outcome, reused, decision } = await reuse.compile(files, (targets) => compileProject(new MemoryFileSystem(files), { esbuild, library, typecheck, bundler }, { targets, ...(previewMode ? { bundle: { preview: true } } : {}) }));
  return { outcome, reused, targets: bundler.asked.slice(before), ...(decision.reuse ? {} : { reason: decision.reason }) };
}

const text = (outcome: BuildOutcome, path: string) => new TextDecoder().decode(outcome.files?.get(path));

/** A server edit in the todo template: each listed title gets a suffix. */
const serverEdit = (files: Record<string, string>, n: number) => edit(files, 'src/server/index.ts', (t) => t.replace('({ id: row.id, title: row.title', `({ id: row.id, title: \`\${row.title} v${n}\``));

describe('the client of a preview build kept after a server-only edit', () => {
  it('bundles the server alone and serves the previous client, byte for byte, with the new server', async () => {
    const reuse = new BundleReuse();
    const files = template('todo');
    const first = await preview(reuse, files);
    expect(first.outcome.files?.has('client/app.js')).toBe(true);
    expect(first.targets).toEqual([['client', 'server']]);
    const edited = serverEdit(files, 1);
    const second = await preview(reuse, edited);
    expect(second.reused).toBe(true);
    expect(second.targets).toEqual([['server']]);
    expect(text(second.outcome, 'server/index.js')).toContain(' v1');
    expect(text(second.outcome, 'server/index.js')).not.toBe(text(first.outcome, 'server/index.js'));
    // Exactly what a full build of the edited files gives the client (a fresh BundleReuse bundles it).
    const full = await preview(new BundleReuse(), edited);
    expect(full.targets).toEqual([['client', 'server']]);
    for (const path of ['client/app.js', 'client/app.js.map', 'client/app.css', 'client/index.html']) {
      expect(second.outcome.files?.has(path), path).toBe(true);
      expect(text(second.outcome, path), path).toBe(text(full.outcome, path));
    }
    expect([...second.outcome.files!.keys()].sort()).toEqual([...full.outcome.files!.keys()].sort());
    // And again after that: the kept client serves a second server edit too.
    const third = await preview(reuse, serverEdit(files, 2));
    expect(third.targets).toEqual([['server']]);
    expect(text(third.outcome, 'server/index.js')).toContain(' v2');
  });

  it('bundles the client again after an edit to a shared file (imported by both zones)', async () => {
    const reuse = new BundleReuse();
    const files = template('todo');
    await preview(reuse, files);
    const shared = await preview(reuse, edit(files, 'src/shared/todo.ts', (t) => t.replace('MAX_TITLE = 200', 'MAX_TITLE = 150')));
    expect(shared.reused).toBe(false);
    expect(shared.reason).toMatch(/src\/shared\/todo\.ts is in the client's graph/);
    expect(shared.targets).toEqual([['client', 'server']]);
    expect(text(shared.outcome, 'client/app.js')).toContain('150');
  });

  it('bundles the client again after an edit to the manifest, package.json, a package or the client', async () => {
    const files = {
      ...template('todo'),
      'package.json': '{"dependencies":{"left-pad":"1.0.0"}}\n',
      'node_modules/left-pad/package.json': '{"name":"left-pad","version":"1.0.0","main":"index.js"}\n',
      'node_modules/left-pad/index.js': 'export default 1;\n',
    };
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      ['the manifest', edit(files, 'app.manifest.json', (t) => t.replace(/"title": "[^"]*"/, '"title": "Renamed"')), /app\.manifest\.json may change the client/],
      ['package.json', edit(files, 'package.json', () => '{"name":"todo","dependencies":{"left-pad":"1.0.0"}}\n'), /package\.json may change the client/],
      ['a package', edit(files, 'node_modules/left-pad/index.js', () => 'export default 2;\n'), /node_modules\/left-pad\/index\.js may change the client/],
      ['the client', edit(files, 'src/client/main.tsx', (t) => t.replace('<h1>', '<h1>Hello ')), /src\/client\/main\.tsx is in the client's graph/],
      ['a stylesheet', edit(files, 'src/client/style.css', (t) => `${t}\nh1 { color: red; }\n`), /style\.css is in the client's graph/],
      ['a new server file', { ...serverEdit(files, 3), 'src/server/extra.ts': 'export const x = 1;\n' }, /added, removed or renamed/],
    ];
    for (const [what, changed, reason] of cases) {
      const reuse = new BundleReuse();
      await preview(reuse, files);
      const next = await preview(reuse, changed);
      expect(next.reused, what).toBe(false);
      expect(next.reason, what).toMatch(reason);
      expect(next.targets, what).toEqual([['client', 'server']]);
    }
  });

  it('bundles the client again when the previous build failed, and a type error still refuses the build', async () => {
    const reuse = new BundleReuse();
    const files = template('todo');
    // The first build has a type error in a server file: nothing is kept from it.
    const broken = edit(files, 'src/server/index.ts', (t) => `${t}\nexport const wrong: number = 'text';\n`);
    const first = await preview(reuse, broken);
    expect(first.outcome.files).toBeUndefined();
    const next = await preview(reuse, serverEdit(files, 4));
    expect(next.reason).toBe('no earlier successful build');
    expect(next.targets).toEqual([['client', 'server']]);
    // With a good build kept, a server edit with a type error is refused whole (no files), client kept or not.
    const refused = await preview(reuse, edit(serverEdit(files, 5), 'src/server/index.ts', (t) => `${t}\nexport const wrong: number = 'text';\n`));
    expect(refused.outcome.files).toBeUndefined();
    expect(refused.outcome.diagnostics.some((d) => d.severity === 'error')).toBe(true);
    // The refused build is not what the next edit is compared against: the good one still is.
    const after = await preview(reuse, serverEdit(files, 6));
    expect(after.reused).toBe(true);
    expect(text(after.outcome, 'server/index.js')).toContain(' v6');
  });

  it('still type-checks the client against the new contract: a server edit that breaks it is refused', async () => {
    const reuse = new BundleReuse();
    const files = template('todo');
    await preview(reuse, files);
    // The list query's rows lose their title, which the client reads: a type error in the client.
    const broken = edit(files, 'src/server/index.ts', (t) => t.replace('export type Todo = { id: string; title: string;', 'export type Todo = { id: string;').replace('({ id: row.id, title: row.title, ', '({ id: row.id, '));
    const next = await preview(reuse, broken);
    expect(next.outcome.files).toBeUndefined();
    expect(next.outcome.diagnostics.some((d) => d.severity === 'error' && d.file === 'src/client/main.tsx')).toBe(true);
  });

  it('keeps the client of a React app after a server edit (the bundler in preview mode, as the playground asks)', async () => {
    const reuse = new BundleReuse();
    const files = template('todo-react');
    const first = await preview(reuse, files, true);
    const next = await preview(reuse, edit(files, 'src/server/index.ts', (t) => t.replace('({ id: row.id, title: row.title', '({ id: row.id, title: `${row.title} v7`')), true);
    expect(next.targets).toEqual([['server']]);
    expect(text(next.outcome, 'client/app.js')).toBe(text(first.outcome, 'client/app.js'));
    expect(text(next.outcome, 'server/index.js')).toContain(' v7');
  });
});
