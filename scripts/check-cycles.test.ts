import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findCycles, findDeepImports, findFolderCycles, importsOf, moduleGraph, stronglyConnected } from './check-cycles';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A checkout in a temporary folder holding `files` (path → text). */
function checkout(files: Record<string, string>): string {
  root = mkdtempSync(join(tmpdir(), 'check-cycles-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('importsOf', () => {
  it('reads every kind of import: static, type-only, re-export, dynamic and import types', () => {
    const text = [
      "import { a } from './a';",
      "import type { B } from './b';",
      "export { c } from './c';",
      "export * from './d';",
      "const e = await import('./e');",
      "let f: import('./f').F;",
      "import g = require('./g');",
      "const h = './not-an-import';",
    ].join('\n');
    expect(importsOf('x.ts', text)).toEqual(['./a', './b', './c', './d', './e', './f', './g']);
  });

  it('reads TSX', () => {
    expect(importsOf('x.tsx', "import { A } from './a';\nexport const view = <A />;")).toEqual(['./a']);
  });
});

describe('stronglyConnected', () => {
  it('finds each cycle once, as sorted files, and a file importing itself', () => {
    const graph = new Map([
      ['a', ['b']], ['b', ['c']], ['c', ['a', 'd']], ['d', []],
      ['e', ['e']], ['f', ['g']], ['g', ['f']],
    ]);
    expect(stronglyConnected(graph)).toEqual([['a', 'b', 'c'], ['e'], ['f', 'g']]);
  });

  it('finds none in a graph without cycles', () => {
    expect(stronglyConnected(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]]))).toEqual([]);
  });
});

describe('findCycles', () => {
  it('finds a cycle planted through type-only imports, .js specifiers, folder entries and platform/ paths', () => {
    const dir = checkout({
      'src/a.ts': "import type { B } from './b.js';\nexport type A = B;",
      'src/b.ts': "import { c } from './lib';\nexport type B = string;\nexport const b = c;",
      'src/lib/index.ts': "export { c } from '../c';",
      'src/c.tsx': "export const c = 1;\nexport async function load() { return import('./a'); }",
      'src/modules/types.ts': "import type { W } from 'platform/wire';\nexport type T = W;",
      'src/modules/wire.ts': "import type { T } from './types';\nexport type W = T | number;",
      'src/leaf.ts': "import { c } from './c';\nimport 'node:fs';\nexport const leaf = c;",
    });
    expect(findCycles(dir, ['src'])).toEqual([
      ['src/a.ts', 'src/b.ts', 'src/c.tsx', 'src/lib/index.ts'],
      ['src/modules/types.ts', 'src/modules/wire.ts'],
    ]);
  });

  it('passes a project without cycles, and leaves packages and assets out of the graph', () => {
    const dir = checkout({
      'src/a.ts': "import { b } from './b';\nimport type { C } from './c';\nimport url from './asset.wasm?url';\nimport 'vitest';",
      'src/b.ts': "import type { C } from './c';\nexport const b = 1;",
      'src/c.ts': 'export type C = number;',
      'worker/w.ts': "import { b } from '../src/b';",
    });
    expect(findCycles(dir, ['src', 'worker'])).toEqual([]);
    expect(moduleGraph(dir, ['src', 'worker'])).toEqual(new Map([
      ['src/a.ts', ['src/b.ts', 'src/c.ts']],
      ['src/b.ts', ['src/c.ts']],
      ['src/c.ts', []],
      ['worker/w.ts', ['src/b.ts']],
    ]));
  });
});

describe('findFolderCycles', () => {
  it('finds the core\'s folders that import each other, through any of their files, and names the imports', () => {
    const dir = checkout({
      'src/core/analyze/analyze.ts': "import { LESSON_ROOT } from '../lesson/index.ts';\nexport const a = LESSON_ROOT;",
      'src/core/analyze/project.ts': "export const isTestFile = (p: string) => p.startsWith('tests/');",
      'src/core/lesson/index.ts': "import { isTestFile } from '../analyze/project.ts';\nexport const LESSON_ROOT = 'lesson';\nexport const t = isTestFile;",
      'src/core/fs/index.ts': "export const fs = 1;",
      'src/core/build/build.ts': "import { a } from '../analyze/analyze';\nimport { fs } from '../fs';\nexport const b = [a, fs];",
    });
    // No file imports itself through another: the folders do.
    expect(findCycles(dir, ['src'])).toEqual([]);
    expect(findFolderCycles(dir)).toEqual([
      {
        folders: ['src/core/analyze', 'src/core/lesson'],
        imports: ['src/core/analyze/analyze.ts -> src/core/lesson/index.ts', 'src/core/lesson/index.ts -> src/core/analyze/project.ts'],
      },
    ]);
  });

  it('leaves tests out: a test may reach into the folder it checks from anywhere', () => {
    const dir = checkout({
      'src/core/analyze/project.ts': "export const p = 1;",
      'src/core/analyze/project.test.ts': "import { b } from '../build/build';\nexport const t = b;",
      'src/core/build/build.ts': "import { p } from '../analyze/project';\nexport const b = p;",
    });
    expect(findFolderCycles(dir)).toEqual([]);
  });
});

describe('findDeepImports', () => {
  it('names each import past a core folder\'s entry, from anywhere outside it, tests included', () => {
    const dir = checkout({
      'src/core/runtime/index.ts': "export { AppRuntime } from './runtime';",
      'src/core/runtime/runtime.ts': "import { p } from './tables/schema';\nexport class AppRuntime { p = p; }",
      'src/core/runtime/tables/schema.ts': "export const p = 1;",
      'src/core/build/build.ts': "import type { AppRuntime } from '../runtime/runtime';\nexport type B = AppRuntime;",
      'src/ui/page.ts': "import { p } from '../core/runtime/tables/schema.ts';\nexport const q = p;",
      'worker/host.test.ts': "export const load = () => import('../src/core/runtime/runtime');",
    });
    expect(findDeepImports(dir)).toEqual([
      'src/core/build/build.ts -> src/core/runtime/runtime.ts',
      'src/ui/page.ts -> src/core/runtime/tables/schema.ts',
      'worker/host.test.ts -> src/core/runtime/runtime.ts',
    ]);
  });

  it('lets the folder\'s entry, its test suites\' entry and test data through, and a folder reach into itself', () => {
    const dir = checkout({
      'src/core/runtime/index.ts': "export { AppRuntime } from './runtime';",
      'src/core/runtime/testing.ts': "export { suite } from './conformance';",
      'src/core/runtime/conformance.ts': "import { AppRuntime } from './runtime';\nexport const suite = [AppRuntime];",
      'src/core/runtime/runtime.ts': "export class AppRuntime {}",
      'src/core/runtime/__fixtures__/app.ts': "export const app = 1;",
      'src/core/share/frame.fixture.ts': "export const frame = 1;",
      'src/core/build/build.ts': "import { AppRuntime } from '../runtime';\nexport const b = AppRuntime;",
      'src/ui/page.test.ts': "import { suite } from '../core/runtime/testing';\nimport { app } from '../core/runtime/__fixtures__/app';\nimport { frame } from '../core/share/frame.fixture';\nimport { AppRuntime } from '../core/runtime/index.ts';\nexport const all = [suite, app, frame, AppRuntime];",
    });
    expect(findDeepImports(dir)).toEqual([]);
  });
});
