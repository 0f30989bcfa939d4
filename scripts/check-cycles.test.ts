import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findCycles, findFolderCycles, importsOf, moduleGraph, stronglyConnected } from './check-cycles';

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
