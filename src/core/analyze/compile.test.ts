import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { compileProject } from '../build/build';
import { TypeCheckSession } from '../build/typecheck';
import type { Diagnostic } from '../diagnostics';
import { MemoryFileSystem } from '../fs';
import { LineIndex } from '../text/positions';
import { analyzeProject } from './analyze';
import { baseApp } from './__fixtures__/base-app';
import { compileCases, type CompileExpected } from './__fixtures__/compile-cases';

const library = nodeLibrary();
const session = new TypeCheckSession(library);

function filesOf(changes: Record<string, string | null>): Record<string, string> {
  const files: Record<string, string> = { ...baseApp() };
  for (const [path, text] of Object.entries(changes)) {
    if (text === null) delete files[path];
    else files[path] = text;
  }
  return files;
}

function locate(expected: CompileExpected, files: Record<string, string>) {
  if (expected.at === undefined || !expected.file) return undefined;
  const text = files[expected.file];
  if (text === undefined) throw new Error(`No file ${expected.file} in the fixture`);
  let offset = -1;
  for (let n = 0; n < (expected.nth ?? 1); n++) {
    offset = text.indexOf(expected.at, offset + 1);
    if (offset < 0) throw new Error(`Marker ${JSON.stringify(expected.at)} is not in ${expected.file}`);
  }
  return new LineIndex(text).span(offset, expected.at.length);
}

function matches(d: Diagnostic, e: CompileExpected, files: Record<string, string>): boolean {
  if (d.code !== e.code) return false;
  if (e.file !== undefined && d.file !== e.file) return false;
  const span = locate(e, files);
  if (span && (d.span?.line !== span.line || d.span?.column !== span.column || (!e.startOnly && d.span?.length !== span.length))) return false;
  if (e.message && !d.message.includes(e.message)) return false;
  if (e.hint && !d.hint?.toLowerCase().includes(e.hint.toLowerCase())) return false;
  if ((d.primary ?? undefined) !== e.primary) return false;
  if ((d.causedBy ?? undefined) !== e.causedBy) return false;
  return true;
}

describe('compiler golden cases: fixture projects in, diagnostics out', () => {
  for (const testCase of compileCases) {
    it(testCase.name, async () => {
      const files = filesOf(testCase.files);
      const fs = new MemoryFileSystem(files);
      const diagnostics = testCase.bundle
        ? (await compileProject(fs, { esbuild, library, typecheck: session })).diagnostics
        : (await analyzeProject(fs, { library, typecheck: session })).diagnostics;
      const unmatched = [...diagnostics];
      const missing: CompileExpected[] = [];
      for (const e of testCase.expected) {
        const index = unmatched.findIndex((d) => matches(d, e, files));
        if (index < 0) missing.push(e);
        else unmatched.splice(index, 1);
      }
      expect({ missing, unexpected: unmatched }).toEqual({ missing: [], unexpected: [] });
    });
  }
});

describe('a warm session follows edits', () => {
  it('retypes the client when the server changes a result, and again when it changes back', async () => {
    const fs = new MemoryFileSystem(baseApp());
    const check = async () => (await analyzeProject(fs, { library, typecheck: session, focus: 'src/client/main.tsx' })).diagnostics;
    expect(await check()).toEqual([]);
    const server = baseApp()['src/server/index.ts']!;
    fs.write('src/server/index.ts', server.replace('return rows.map((row) => ({ id: row.id, title: row.title, done: row.done }));', 'return rows.length;'));
    const broken = await check();
    expect(broken).toEqual([
      expect.objectContaining({ code: 'DG1205', file: 'src/client/main.tsx', message: expect.stringContaining("Property 'map' does not exist on type 'number'") }),
      expect.objectContaining({ code: 'DG1205', file: 'src/client/main.tsx', message: expect.stringContaining("Parameter 'todo' implicitly has an 'any' type") }),
    ]);
    fs.write('src/server/index.ts', server);
    expect(await check()).toEqual([]);
  });

  it('writes the server declarations the contract is typed from', async () => {
    const analysis = await analyzeProject(new MemoryFileSystem(baseApp()), { library, typecheck: session });
    const declaration = analysis.generated.get('.platform/types/server/src/server/index.d.ts');
    expect(declaration).toContain("readonly 'todos.list': import(\"platform/server\").QueryDescriptor<{}, {");
    expect(analysis.generated.get('.platform/types/app.d.ts')).toContain('server: typeof import("./server/src/server/index").default;');
  });
});
