import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { compileProject } from '../build';
import { TypeCheckSession } from './typecheck';
import type { Diagnostic } from '../diagnostics';
import { MemoryFileSystem } from '../fs';
import { LineIndex } from '../text';
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

  it('checks again only what an edit can reach, and finds what a fresh session finds', async () => {
    const warm = new TypeCheckSession(library);
    const fs = new MemoryFileSystem(baseApp());
    const checked: string[] = [];
    const check = warm.check.bind(warm);
    warm.check = (paths) => (checked.push(...paths), check(paths));
    const analyze = async (focus?: string) => {
      checked.length = 0;
      const found = (await analyzeProject(fs, { library, typecheck: warm, ...(focus ? { focus } : {}) })).diagnostics;
      const fresh = (await analyzeProject(new MemoryFileSystem(Object.fromEntries(fs.entries())), { library, typecheck: new TypeCheckSession(library) })).diagnostics;
      expect(found).toEqual(fresh);
      return found;
    };
    expect(await analyze()).toEqual([]);
    expect(checked.sort()).toEqual(['src/client/main.tsx', 'src/server/index.ts', 'src/shared/text.ts', 'tests/todos.test.ts']);

    // A client edit: the client alone (the server, the shared helper and the test cannot import it).
    fs.write('src/client/main.tsx', `${baseApp()['src/client/main.tsx']}\nexport const edited: number = 'no';\n`);
    expect(await analyze('src/client/main.tsx')).toEqual([expect.objectContaining({ code: 'DG1205', file: 'src/client/main.tsx', message: expect.stringContaining('TS2322') })]);
    expect(checked).toEqual(['src/client/main.tsx']);
    fs.write('src/client/main.tsx', baseApp()['src/client/main.tsx']!);
    expect(await analyze('src/client/main.tsx')).toEqual([]);

    // A shared file is in every zone that imports it: all of them are checked again.
    fs.write('src/shared/text.ts', 'export function clean(text: string): number {\n  return text.length;\n}\n');
    expect((await analyze('src/shared/text.ts')).map((d) => d.file)).toEqual(expect.arrayContaining(['src/server/index.ts', 'src/client/main.tsx']));
    // (the client and the test twice: once more against a permissive contract, since the server broke it)
    expect([...new Set(checked)].sort()).toEqual(['src/client/main.tsx', 'src/server/index.ts', 'src/shared/text.ts', 'tests/todos.test.ts']);
    fs.write('src/shared/text.ts', baseApp()['src/shared/text.ts']!);
    expect(await analyze()).toEqual([]);

    // The manifest's tables reach the server through the generated types, with no server edit.
    const manifest = JSON.parse(baseApp()['app.manifest.json']!) as { database: { tables: { todos: { fields: Record<string, unknown> } } } };
    delete manifest.database.tables.todos.fields.done;
    fs.write('app.manifest.json', JSON.stringify(manifest, null, 2));
    expect((await analyze()).some((d) => d.code === 'DG1205' && d.file === 'src/server/index.ts' && d.message.includes("'done'"))).toBe(true);
    fs.write('app.manifest.json', baseApp()['app.manifest.json']!);
    expect(await analyze()).toEqual([]);
    // Several fresh sessions, each parsing the libraries: on a busy 2-core machine past the default 30 s.
  }, 120_000);

  it('checks again only the edited file after a body-only edit of a file others import, and every importer after an exported type changed', async () => {
    // src/shared/format.ts is imported by two client parts, a server helper and, through a part's inferred export, one more client file.
    const FORMAT = 'export function label(n: number): string {\n  return `n${n}`;\n}\n';
    const files: Record<string, string> = {
      ...baseApp(),
      'src/shared/format.ts': FORMAT,
      'src/client/parts/a.tsx': "import { label } from '../../shared/format';\nexport const shown = label(1);\nexport const A = () => <p>{shown}</p>;\n",
      'src/client/parts/b.tsx': "import { label } from '../../shared/format';\nconst text: string = label(2);\nexport const B = () => <p>{text}</p>;\n",
      'src/client/parts/c.ts': "import { shown } from './a';\nexport const again: string = shown;\n",
      'src/server/helpers.ts': "import { label } from '../shared/format';\nexport function heading(): string {\n  return label(3);\n}\n",
    };
    files['src/client/main.tsx'] = `import { A } from './parts/a';\nimport { B } from './parts/b';\nimport { again } from './parts/c';\nvoid [A, B, again];\n${files['src/client/main.tsx']}`;
    files['src/server/index.ts'] = `import { heading } from './helpers';\nvoid heading;\n${files['src/server/index.ts']}`;
    const warm = new TypeCheckSession(library);
    const fs = new MemoryFileSystem(files);
    const checked: string[] = [];
    const declared: string[] = [];
    const check = warm.check.bind(warm);
    warm.check = (paths) => (checked.push(...paths), check(paths));
    const service = warm.service;
    const emit = service.getEmitOutput.bind(service);
    service.getEmitOutput = (fileName, dtsOnly, force) => (force ? undefined : declared.push(fileName.replace(/^.*?\/src\//, 'src/')), emit(fileName, dtsOnly, force));
    const analyze = async (focus?: string) => {
      checked.length = 0;
      declared.length = 0;
      const found = (await analyzeProject(fs, { library, typecheck: warm, ...(focus ? { focus } : {}) })).diagnostics;
      const fresh = (await analyzeProject(new MemoryFileSystem(Object.fromEntries(fs.entries())), { library, typecheck: new TypeCheckSession(library) })).diagnostics;
      expect(found).toEqual(fresh);
      return found;
    };
    expect(await analyze()).toEqual([]);

    // The body only: the signature stands, so no importer is checked again and only its declarations are emitted again.
    fs.write('src/shared/format.ts', FORMAT.replace('`n${n}`', '`#${n}`'));
    expect(await analyze('src/shared/format.ts')).toEqual([]);
    expect(checked).toEqual(['src/shared/format.ts']);
    expect(declared).toEqual(['src/shared/format.ts']);

    // A server handler's body: that file alone, checked and declared.
    fs.write('src/server/helpers.ts', files['src/server/helpers.ts']!.replace('label(3)', 'label(4)'));
    expect(await analyze('src/server/helpers.ts')).toEqual([]);
    expect(checked).toEqual(['src/server/helpers.ts']);
    expect(declared).toEqual(['src/server/helpers.ts']);

    // The exported type: every importer is checked again and reports its errors, c.ts too (through a.tsx's inferred export).
    fs.write('src/shared/format.ts', 'export function label(n: number): number {\n  return n;\n}\n');
    const broken = await analyze('src/shared/format.ts');
    expect(broken.map((d) => `${d.code} ${d.file}`).sort()).toEqual(['DG1205 src/client/parts/b.tsx', 'DG1205 src/client/parts/c.ts', 'DG1205 src/server/helpers.ts']);
    expect(checked).toEqual(expect.arrayContaining(['src/shared/format.ts', 'src/client/parts/a.tsx', 'src/client/parts/b.tsx', 'src/client/parts/c.ts', 'src/client/main.tsx', 'src/server/helpers.ts', 'src/server/index.ts']));

    // And back: the errors go.
    fs.write('src/shared/format.ts', FORMAT);
    expect(await analyze('src/shared/format.ts')).toEqual([]);
    // Several fresh sessions, each parsing the libraries: on a busy 2-core machine past the default 30 s.
  }, 120_000);

  it("reports a server file's declaration errors (what its declarations cannot say) as DG1205", async () => {
    const files: Record<string, string> = { ...baseApp(), 'src/server/helpers.ts': 'export const Counter = class {\n  private count = 0;\n};\n' };
    files['src/server/index.ts'] = `import { Counter } from './helpers';\nexport const counter = new Counter();\n${files['src/server/index.ts']}`;
    const analysis = await analyzeProject(new MemoryFileSystem(files), { library, typecheck: session });
    const primary = analysis.diagnostics.filter((d) => d.severity === 'error' && !d.causedBy);
    // Each server file whose declarations show the class: the one that defines it, and the one that exports an instance.
    const message = "TS4094 Property 'count' of exported anonymous class type may not be private or protected.";
    expect(primary.map((d) => [d.code, d.file, d.span?.line, d.message]).sort()).toEqual([
      ['DG1205', 'src/server/helpers.ts', 1, message],
      ['DG1205', 'src/server/index.ts', 2, message],
    ]);
  });

  it('writes the server declarations the contract is typed from', async () => {
    const analysis = await analyzeProject(new MemoryFileSystem(baseApp()), { library, typecheck: session });
    const declaration = analysis.generated.get('.platform/types/server/src/server/index.d.ts');
    expect(declaration).toContain("readonly 'todos.list': import(\"platform/server\").QueryDescriptor<{}, {");
    expect(analysis.generated.get('.platform/types/app.d.ts')).toContain('server: typeof import("./server/src/server/index").default;');
  });
});
