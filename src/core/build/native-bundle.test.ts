/**
 * The Bundler's native mode (a project in a directory, as `platform dev` bundles one): esbuild resolves
 * and reads the project's scripts itself, and a build is taken only when it read what the plugin would
 * have given it. Each case against the plugin's build of the same files: the same client bytes, the
 * same server code, source maps and metafile naming the project's files `app:…`; a save after the
 * analysis (of the same length), a file reached through a link out of the project, a directory import
 * esbuild would resolve otherwise, and a tsconfig.json of the project change nothing of what is bundled.
 */
import * as esbuild from 'esbuild';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { libraryOnDisk, nodeLibrary } from '../../adapters/node/library';
import { NodeFileSystem } from '../../adapters/node/node-file-system';
import { directoryOf } from '../../adapters/node/thread-bundler';
import { baseApp } from '../analyze/__fixtures__/base-app';
import { analyzeProject } from '../analyze';
import { Bundler, pluginSpecifiers, type BundleResult, type EsbuildApi } from '../bundle';

const library = nodeLibrary();
const native = new Bundler(esbuild, library, { directoryOf, libraryOnDisk: () => libraryOnDisk(library) });
const plugin = new Bundler(esbuild, library);
const folders: string[] = [];
afterAll(async () => {
  await Promise.all([native.dispose(), plugin.dispose()]);
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const SHARED = 'src/shared/text.ts';
const decoder = new TextDecoder();
const text = (result: BundleResult, path: string) => decoder.decode(result.files.get(path));

function project(files: Record<string, string> = baseApp()): string {
  const root = mkdtempSync(join(tmpdir(), 'platform-native-bundle-'));
  folders.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

async function analysed(root: string) {
  const analysis = await analyzeProject(new NodeFileSystem(root), { library, typecheck: false });
  expect(analysis.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return analysis.project!;
}


describe('the native mode bundles what the plugin bundles', () => {
  it('makes the same client and server, with source maps and metafile naming app: files', async () => {
    const root = project();
    const files = await analysed(root);
    const [mine, reference] = [await native.bundle(files, ['client', 'server']), await plugin.bundle(files, ['client', 'server'])];
    expect(mine.diagnostics).toEqual(reference.diagnostics);
    expect(mine.native).toEqual(['client', 'server']);
    expect([...mine.files.keys()].sort()).toEqual([...reference.files.keys()].sort());
    // Byte for byte (compared whole, said briefly: a minified client is one long line).
    for (const [path, bytes] of reference.files) expect(text(mine, path) === decoder.decode(bytes), path).toBe(true);
    expect(mine.sizes).toEqual(reference.sizes);
    expect([...mine.files.keys()].sort()).toEqual([...reference.files.keys()].sort());
  });

  it('bundles the texts the analysis read: a save of the same length after it is not in this build', async () => {
    const root = project();
    const files = await analysed(root);
    const before = (await new NodeFileSystem(root).readText(SHARED))!;
    const saved = before.replace('trim()', 'trop()');
    expect(saved.length).toBe(before.length);
    writeFileSync(join(root, SHARED), saved);
    const result = await native.bundle(files, ['client', 'server']);
    // The client imports the saved file too: both are made through the plugin.
    expect(result.native).toBeUndefined();
    expect(text(result, 'server/index.js')).toContain('trim()');
    expect(text(result, 'server/index.js')).not.toContain('trop()');
    // The next analysis has the save, and the native mode takes it.
    const next = await native.bundle(await analysed(root), ['client', 'server']);
    expect(text(next, 'server/index.js')).toContain('trop()');
    expect(next.native).toEqual(['client', 'server']);
  });

  it('never reads through a link out of the project: the plugin refuses it as before', async () => {
    const outside = project({ 'text.ts': `export function clean(text: string): string {\n  return 'outside-marker';\n}\n` });
    const root = project();
    rmSync(join(root, SHARED));
    symlinkSync(join(outside, 'text.ts'), join(root, SHARED));
    const files = await analyzeProject(new NodeFileSystem(root), { library, typecheck: false });
    const [mine, reference] = [await native.bundle(files.project!, ['server']), await plugin.bundle(files.project!, ['server'])];
    expect(mine.native).toBeUndefined();
    expect(text(mine, 'server/index.js')).toBe(text(reference, 'server/index.js'));
    expect(mine.diagnostics).toEqual(reference.diagnostics);
    expect(text(mine, 'server/index.js')).not.toContain('outside-marker');
  });

  it('resolves as the plugin does where esbuild alone would not, and ignores a tsconfig.json', async () => {
    const root = project({
      ...baseApp(),
      // `./pick.mjs`: the platform takes pick.ts (as TypeScript names a .js import), esbuild alone pick.mts.
      'src/shared/pick.ts': `export const picked = 'ts-marker';\n`,
      'src/shared/pick.mts': `export const picked = 'mts-marker';\n`,
      // Read by esbuild alone: class fields assigned in the constructor.
      'tsconfig.json': JSON.stringify({ compilerOptions: { useDefineForClassFields: false } }),
      'src/client/box.ts': `export class Box {\n  size = 'box-size';\n}\n`,
    });
    writeFileSync(join(root, 'src/server/index.ts'), `${baseApp()['src/server/index.ts']}\nimport { picked } from '../shared/pick.mjs';\nconsole.log(picked);\n`);
    writeFileSync(join(root, 'src/client/main.tsx'), `${baseApp()['src/client/main.tsx']}\nimport { Box } from './box';\nconsole.log(new Box().size);\n`);
    const files = await analysed(root);
    const [mine, reference] = [await native.bundle(files, ['client', 'server']), await plugin.bundle(files, ['client', 'server'])];
    expect(mine.native).toEqual(['client']);
    expect(text(mine, 'server/index.js')).toContain('ts-marker');
    expect(text(mine, 'server/index.js')).not.toContain('mts-marker');
    expect(text(mine, 'client/app.js')).toContain('box-size');
    for (const [path, bytes] of reference.files) expect(text(mine, path) === decoder.decode(bytes), path).toBe(true);
  });

  it('says what the plugin says of a build that fails', async () => {
    const root = project();
    writeFileSync(join(root, 'src/server/index.ts'), `${baseApp()['src/server/index.ts']}\nimport { gone } from '../shared/missing';\nconsole.log(gone);\n`);
    const files = (await analyzeProject(new NodeFileSystem(root), { library, typecheck: false })).project!;
    const [mine, reference] = [await native.bundle(files, ['client', 'server']), await plugin.bundle(files, ['client', 'server'])];
    expect(mine.native).toEqual(['client']);
    expect(mine.diagnostics.length).toBeGreaterThan(0);
    expect(mine.diagnostics).toEqual(reference.diagnostics);
    expect(mine.files.has('server/index.js')).toBe(false);
  });
});

describe('the platform\'s modules and Preact, read by esbuild from the Library\'s files on disk', () => {
  /** A native Bundler whose plugin counts the specifiers it is asked to resolve. */
  function counting(): { bundler: Bundler; asked: string[] } {
    const asked: string[] = [];
    const counted = {
      ...esbuild,
      context: (options: esbuild.BuildOptions) =>
        esbuild.context({
          ...options,
          plugins: options.plugins!.map((plugin) => ({
            ...plugin,
            setup: (build: esbuild.PluginBuild) =>
              plugin.setup({ ...build, onResolve: (filter, callback) => build.onResolve(filter, (args) => (asked.push(args.path), callback(args))) }),
          })),
        }),
    } as unknown as EsbuildApi;
    return { bundler: new Bundler(counted, library, { directoryOf, libraryOnDisk: () => libraryOnDisk(library) }), asked };
  }

  it('asks the plugin for none of them, and makes the bytes the plugin makes', async () => {
    const files = await analysed(project());
    const { bundler, asked } = counting();
    try {
      const [mine, reference] = [await bundler.bundle(files, ['client', 'server']), await plugin.bundle(files, ['client', 'server'])];
      expect(mine.native).toEqual(['client', 'server']);
      expect(asked.filter((path) => /^(?:platform|preact)/.test(path))).toEqual([]);
      for (const [path, bytes] of reference.files) expect(text(mine, path) === decoder.decode(bytes), path).toBe(true);
      expect(mine.sizes).toEqual(reference.sizes);
    } finally {
      await bundler.dispose();
    }
  });

  it('refuses what the plugin refuses: the server importing the client module or the renderer', async () => {
    const root = project();
    writeFileSync(join(root, 'src/server/index.ts'), `${baseApp()['src/server/index.ts']}\nimport { h } from 'preact';\nimport * as client from 'platform/client';\nconsole.log(h, client);\n`);
    const files = (await analyzeProject(new NodeFileSystem(root), { library, typecheck: false })).project!;
    const [mine, reference] = [await native.bundle(files, ['server']), await plugin.bundle(files, ['server'])];
    expect(reference.diagnostics.length).toBeGreaterThan(0);
    expect(mine.diagnostics).toEqual(reference.diagnostics);
    expect(mine.files.has('server/index.js')).toBe(false);
  });

  it('a Library file changed on disk is not bundled: the build is made through the plugin', async () => {
    const files = await analysed(project());
    const onDisk = libraryOnDisk(library);
    const hooks = onDisk.get('/node_modules/preact/hooks/dist/hooks.mjs')!;
    const bundler = new Bundler(esbuild, library, { directoryOf, libraryOnDisk: () => onDisk });
    try {
      writeFileSync(hooks, `${library.files.get('/node_modules/preact/hooks/dist/hooks.mjs')}\nconsole.log('tampered-marker');\n`);
      const mine = await bundler.bundle(files, ['client']);
      expect(mine.native).toBeUndefined();
      expect(text(mine, 'client/app.js')).not.toContain('tampered-marker');
      expect(text(mine, 'client/app.js')).toBe(text(await plugin.bundle(files, ['client']), 'client/app.js'));
    } finally {
      await bundler.dispose();
      // Written again as the Library has it.
      expect(libraryOnDisk(library).get('/node_modules/preact/hooks/dist/hooks.mjs')).toBe(hooks);
    }
  });

  it('the filter leaves out exactly the aliased specifiers', () => {
    const filter = pluginSpecifiers(['platform/client', 'preact', 'preact/hooks', 'preact/jsx-runtime']);
    for (const specifier of ['platform/client', 'preact', 'preact/hooks', 'preact/jsx-runtime', './a', '../b/c']) expect(filter.test(specifier), specifier).toBe(false);
    for (const specifier of ['platform/server', 'platform', 'platform/clientx', 'platform/client/', 'preact/compat', 'preactx', 'prea', 'p', 'react', 'lodash', 'preact/hooks/x', './a.css', '../b.json', '.', '..', '.x']) {
      expect(filter.test(specifier), specifier).toBe(true);
    }
  });
});
