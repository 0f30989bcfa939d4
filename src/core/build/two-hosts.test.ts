import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as esbuild from 'esbuild';
import * as esbuildWasm from 'esbuild-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { NodeFileSystem } from '../../adapters/node/node-file-system';
import { nodeTemplates } from '../../adapters/node/templates';
import { baseApp, CLIENT } from '../analyze/__fixtures__/base-app';
import { packageApp } from './__fixtures__/package-app';
import { MemoryFileSystem } from '../fs';
import { compileProject } from './build';
import { TypeCheckSession } from '../analyze';

const library = nodeLibrary();
const session = new TypeCheckSession(library);
const native = { esbuild, library, typecheck: session };
const wasm = { esbuild: esbuildWasm, library, typecheck: session };
const dirs: string[] = [];

afterAll(async () => {
  await esbuildWasm.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A bundled template's text files (templates/<id>). */
function readTemplate(id: string): Record<string, string> {
  return Object.fromEntries(Object.entries(nodeTemplates().find((t) => t.id === id)!.files).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function onDisk(files: Record<string, string>): NodeFileSystem {
  const dir = mkdtempSync(join(tmpdir(), 'platform-hosts-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return new NodeFileSystem(dir);
}

describe('one compiler, two hosts', () => {
  it('gives the same artifact id with native esbuild and esbuild-wasm, in memory and on disk', async () => {
    const a = await compileProject(new MemoryFileSystem(baseApp()), native);
    const b = await compileProject(new MemoryFileSystem(baseApp()), wasm);
    const c = await compileProject(onDisk(baseApp()), wasm);
    expect(a.diagnostics).toEqual([]);
    expect(a.id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(b.id).toBe(a.id);
    expect(c.id).toBe(a.id);
    for (const [path, bytes] of a.files!) expect(b.files!.get(path), path).toEqual(bytes);
  });

  it('gives the same artifact id for an app that bundles its own packages from node_modules', async () => {
    const a = await compileProject(new MemoryFileSystem(packageApp()), native);
    const b = await compileProject(onDisk(packageApp()), wasm);
    expect(a.diagnostics).toEqual([]);
    expect(b.id).toBe(a.id);
    const server = new TextDecoder().decode(a.files!.get('server/index.js'));
    expect(server).toContain('toUpperCase()}!');
    expect(server).not.toContain('node:util');
  });

  it('gives the same artifact id for a React app (React from the platform, platform/client bound to it)', async () => {
    const files = readTemplate('todo-react');
    const a = await compileProject(new MemoryFileSystem(files), native);
    const b = await compileProject(onDisk(files), wasm);
    expect(a.diagnostics).toEqual([]);
    expect(b.id).toBe(a.id);
    const client = new TextDecoder().decode(a.files!.get('client/app.js'));
    // React's production build (not its development one), and no Preact: the hooks of platform/client are React's.
    expect(client).toContain('createRoot');
    expect(client).not.toContain('react.development');
    expect(client).not.toMatch(/preact/i);
  });

  it('gives the same diagnostics for a broken project with both esbuilds', async () => {
    const files = { ...baseApp(), 'src/client/main.tsx': CLIENT.replace("useQuery('todos.list'", "useQuery('todos.lisst'"), 'public/index.html': 'x' };
    const a = await compileProject(new MemoryFileSystem(files), native);
    const b = await compileProject(new MemoryFileSystem(files), wasm);
    expect(a.diagnostics.length).toBeGreaterThan(0);
    expect(b.diagnostics).toEqual(a.diagnostics);
    const bundleOnly = { ...baseApp(), 'public/_xa/x.txt': 'x' };
    expect((await compileProject(new MemoryFileSystem(bundleOnly), wasm)).diagnostics).toEqual((await compileProject(new MemoryFileSystem(bundleOnly), native)).diagnostics);
  });

  it('changes the id when a source changes, and only then', async () => {
    const first = await compileProject(new MemoryFileSystem(baseApp()), native);
    const again = await compileProject(new MemoryFileSystem(baseApp()), native);
    const edited = await compileProject(new MemoryFileSystem({ ...baseApp(), 'src/client/main.tsx': CLIENT.replace('Add</button>', 'Add it</button>') }), native);
    expect(again.id).toBe(first.id);
    expect(edited.id).not.toBe(first.id);
  });

  it('keeps absolute paths and times out of the outputs', async () => {
    const outcome = await compileProject(onDisk(baseApp()), native);
    for (const [path, bytes] of outcome.files!) {
      const text = new TextDecoder().decode(bytes);
      expect(text, path).not.toContain(tmpdir());
      expect(text, path).not.toContain('/work/');
    }
  });
});
