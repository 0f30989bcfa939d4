import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { nodeTemplates } from '../../adapters/node/templates';
import { templateFiles } from '../../testing/control-plane-apps';
import { TypeCheckSession } from './typecheck';
import { MemoryFileSystem } from '../fs';
import { analyzeProject } from './analyze';
import { contractUse, CONTRACT_WIDE, OPERATION_FREE, PER_OPERATION, type ContractUse } from './contract-view';
import { parse } from './imports';

const library = nodeLibrary();

const use = (text: string, path = 'src/client/main.tsx'): ContractUse => contractUse(parse(path, text));
const ops = (...names: string[]) => new Set(names);

describe('what a client file observes of the contract, read from its syntax', () => {
  it('the operations named by literal calls of the per-operation functions', () => {
    const text = [
      "import { useQuery, useMutation as mutate, query, mutation, signIn, type QueryState } from 'platform/client';",
      "import type { Row } from 'platform/types';",
      "const list = useQuery('todos.list', {});",
      'const add = mutate(`todos.add`);',
      "void query('todos.count', { done: true });",
      "void mutation('todos.clear', {});",
      "export const state: QueryState<Row<'todos'>[]> | undefined = undefined;",
      'signIn();',
    ].join('\n');
    expect(use(text)).toEqual(ops('queries todos.list', 'mutations todos.add', 'queries todos.count', 'mutations todos.clear'));
  });

  it('nothing for a file that imports no platform module, or names their exports only as properties', () => {
    expect(use("import { render } from 'preact';\nrender(null, document.body);")).toEqual(ops());
    expect(use("import { useQuery } from 'platform/client';\nconst o = { useQuery: 1 };\nconst p = o.useQuery;\nuseQuery('a.b', {});")).toEqual(ops('queries a.b'));
  });

  it.each([
    ['a name that is not a literal', "import { useQuery } from 'platform/client';\nconst name = 'a.b' as const;\nuseQuery(name, {});"],
    ['a per-operation function passed around', "import { useQuery } from 'platform/client';\nconst run = useQuery;\nrun('a.b', {});"],
    ['a per-operation function in a type', "import { useQuery } from 'platform/client';\ntype Q = typeof useQuery;"],
    ['type arguments', "import { useQuery } from 'platform/client';\nuseQuery<'a.b'>('a.b', {});"],
    ['a spread name', "import { useQuery } from 'platform/client';\nconst args = ['a.b', {}] as const;\nuseQuery(...args);"],
    ['a contract-wide type', "import type { QueryNames } from 'platform/types';\nexport const labels: Record<QueryNames, string> = {};"],
    ['an export the reading does not know', "import { somethingNew } from 'platform/client';\nsomethingNew();"],
    ['a namespace import', "import * as client from 'platform/client';\nclient.useQuery('a.b', {});"],
    ['another platform module', "import type { Row } from 'platform/server';\nexport type R = Row<'todos'>;"],
    ['a generated file', "import type server from '../../.platform/types/server/src/server/index';\nexport type S = typeof server;"],
    ['a re-export', "export { useQuery } from 'platform/client';"],
    ['a local re-export', "import { useQuery } from 'platform/client';\nexport { useQuery };"],
    ['an import type', "export type R = import('platform/types').QueryResult<'a.b'>;"],
    ['a dynamic import', "export const client = import('platform/client');"],
    ['a dynamic import of a computed path', "const where = './x';\nexport const x = import(where);"],
    ['an augmentation', "declare module 'platform/types' {\n  interface Register { extra: 1 }\n}\nexport {};"],
    ['a reference to a generated file', '/// <reference path="../../.platform/types/app.d.ts" />\nexport {};'],
    ['a platform module named in a string', "const which = 'platform/client';\nexport { which };"],
  ])('the whole contract for %s', (_, text) => {
    expect(use(text)).toBe('wide');
  });

  it.each([
    ['a require', "const { useQuery } = require('platform/client');\nuseQuery('a.b', {});"],
    ['JSDoc that imports a type', "/** @import { QueryNames } from 'platform/types' */\n/** @type {QueryNames} */\nexport const name = 'a.b';"],
    ['a require of a computed path', 'const where = "./x";\nexport const x = require(where);'],
  ])('the whole contract for JavaScript with %s', (_, text) => {
    expect(use(text, 'src/client/helper.js')).toBe('wide');
  });

  it('knows every export of platform/client and platform/types', () => {
    const session = new TypeCheckSession(library);
    session.sync(new Map([['src/probe.ts', "import 'platform/client';\nimport 'platform/types';\n"]]));
    const program = session.service.getProgram()!;
    const checker = program.getTypeChecker();
    for (const module of ['platform/client', 'platform/types'] as const) {
      const source = program.getSourceFile(`/node_modules/${module}.ts`)!;
      const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).map((symbol) => symbol.name);
      const known = new Set([...OPERATION_FREE[module], ...CONTRACT_WIDE[module], ...(module === 'platform/client' ? Object.keys(PER_OPERATION) : [])]);
      expect(exported.filter((name) => !known.has(name)), `exports of ${module} to classify in contract-view.ts`).toEqual([]);
      expect([...known].filter((name) => !exported.includes(name)), `names contract-view.ts lists that ${module} does not export`).toEqual([]);
    }
  });

  it('types the operation-free exports the same whatever the operations are', async () => {
    // Each export typed in a probe, under two contracts that share no operation: what it prints must not change.
    const free = (module: 'platform/client' | 'platform/types') => [...OPERATION_FREE[module]];
    const probe = [
      `import * as client from 'platform/client';`,
      `import type * as types from 'platform/types';`,
      ...free('platform/client').map((name, i) => `export type C${i} = ${/^[A-Z]/.test(name) && !['RuntimeError', 'QueryClient'].includes(name) ? `client.${name}${name === 'QueryState' ? '<1>' : ''}` : `typeof client.${name}`};`),
      ...free('platform/types').map((name, i) => `export type T${i} = types.${name}${['Row', 'Insert'].includes(name) ? "<'todos'>" : name === 'InputOf' ? "<{ a: 'string' }>" : ''};`),
    ].join('\n');
    const printed = async (server: string) => {
      const files = { ...templateFiles('todo'), 'src/server/index.ts': server, 'src/probe.ts': probe };
      const session = new TypeCheckSession(library);
      await analyzeProject(new MemoryFileSystem(files), { library, typecheck: session, zones: ['server'] });
      const program = session.service.getProgram()!;
      const checker = program.getTypeChecker();
      const source = program.getSourceFile('/app/src/probe.ts')!;
      return source.statements.filter(ts.isTypeAliasDeclaration).map((alias) => `${alias.name.text}: ${checker.typeToString(checker.getTypeAtLocation(alias.name), undefined, ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.InTypeAlias)}`);
    };
    const server = (name: string, result: string) =>
      `import { defineServer, query, mutation } from 'platform/server';\nexport default defineServer({\n  queries: { '${name}.q': query({ input: {}, handler: async () => ${result} }) },\n  mutations: { '${name}.m': mutation({ input: { x: 'number' }, handler: async (_ctx, input) => input.x }) },\n});\n`;
    const one = await printed(server('one', '1'));
    expect(one.length).toBe(OPERATION_FREE['platform/client'].size + OPERATION_FREE['platform/types'].size);
    expect(await printed(server('two', "'text'"))).toEqual(one);
  });
});

describe('a warm session keeps client files checked while the contract changes where they do not look', () => {
  /** A session that records which files it type-checks. */
  function recording() {
    const session = new TypeCheckSession(library);
    const checked: string[] = [];
    const check = session.check.bind(session);
    session.check = (paths) => (checked.push(...paths), check(paths));
    return { session, checked };
  }
  const addQuery = (server: string, n: number, result: string) => server.replace('queries: {', `queries: {\n    'extra.q${n}': query({ input: {}, handler: async () => ${result} }),`);

  for (const { id } of nodeTemplates()) {
    it(`${id}: a new operation, a change to it, and its removal check the client no more, and find what a fresh session finds`, async () => {
      const files = templateFiles(id);
      const fs = new MemoryFileSystem(files);
      const { session, checked } = recording();
      const clientFiles = Object.keys(files).filter((path) => path.startsWith('src/client/') && /\.tsx?$/.test(path));
      const analyze = async () => {
        checked.length = 0;
        const found = (await analyzeProject(fs, { library, typecheck: session, focus: 'src/server/index.ts' })).diagnostics;
        const fresh = (await analyzeProject(new MemoryFileSystem(Object.fromEntries(fs.entries())), { library, typecheck: new TypeCheckSession(library) })).diagnostics;
        expect(found).toEqual(fresh);
        return found;
      };
      expect(await analyze()).toEqual([]);
      expect(checked).toEqual(expect.arrayContaining(clientFiles));
      const server = files['src/server/index.ts']!;
      const edits = [addQuery(server, 1, '1'), addQuery(server, 1, "'one'"), addQuery(addQuery(server, 1, "'one'"), 2, '[1, 2]'), server];
      if (server.includes('mutations: {')) edits.splice(3, 0, server.replace('mutations: {', "mutations: {\n    'extra.m': mutation({ input: { n: 'number' }, handler: async (_ctx, input) => input.n }),"));
      for (const edit of edits) {
        fs.write('src/server/index.ts', edit);
        expect(await analyze()).toEqual([]);
        expect(checked.filter((path) => clientFiles.includes(path))).toEqual([]);
      }
    });
  }

  it('checks the client again when an operation it calls changes, and when it names the contract as a whole', async () => {
    const files = templateFiles('todo');
    const fs = new MemoryFileSystem(files);
    const { session, checked } = recording();
    const analyze = async () => {
      checked.length = 0;
      const found = (await analyzeProject(fs, { library, typecheck: session, zones: ['client', 'server'] })).diagnostics;
      const fresh = (await analyzeProject(new MemoryFileSystem(Object.fromEntries(fs.entries())), { library, typecheck: new TypeCheckSession(library), zones: ['client', 'server'] })).diagnostics;
      expect(found).toEqual(fresh);
      return found;
    };
    expect(await analyze()).toEqual([]);
    const server = files['src/server/index.ts']!;
    // todos.list, which the client maps over, now resolves to a number.
    const broken = server.replace('handler: async (ctx): Promise<Todo[]> => {', 'handler: async (ctx): Promise<number> => {').replace(/return rows\.map\(\(row\) => \(\{[^\n]*\}\)\);/, 'return rows.length;');
    expect(broken).not.toBe(server);
    fs.write('src/server/index.ts', broken);
    expect((await analyze()).map((d) => [d.file, d.message.slice(0, 6)])).toEqual(expect.arrayContaining([['src/client/main.tsx', 'TS2339']]));
    expect(checked).toContain('src/client/main.tsx');
    // Back as it was: the client had errors, so it is checked again (their messages may name anything).
    fs.write('src/server/index.ts', server);
    expect(await analyze()).toEqual([]);
    expect(checked).toContain('src/client/main.tsx');

    // A client that names every query: a new one is missing from it.
    fs.write('src/client/labels.ts', "import { useQuery } from 'platform/client';\ntype QueryName = Parameters<typeof useQuery>[0];\nexport const labels: Record<QueryName, string> = { 'todos.list': 'All', 'todos.remaining': 'Left' };\n");
    fs.write('src/client/main.tsx', `import { labels } from './labels';\nconsole.log(labels);\n${files['src/client/main.tsx']}`);
    expect(await analyze()).toEqual([]);
    fs.write('src/server/index.ts', addQuery(server, 1, '1'));
    const missing = await analyze();
    expect(missing.map((d) => [d.file, d.message.slice(0, 6)])).toEqual([['src/client/labels.ts', 'TS2741']]);
    expect(checked).toEqual(expect.arrayContaining(['src/client/labels.ts', 'src/client/main.tsx']));
  });

  it('checks the client again when an installed package is typed against the contract', async () => {
    const files = templateFiles('todo');
    const withPackage = {
      ...files,
      'package.json': JSON.stringify({ name: 'todo', private: true, dependencies: { 'query-labels': '1.0.0' } }),
      'node_modules/query-labels/package.json': JSON.stringify({ name: 'query-labels', version: '1.0.0', type: 'module', main: 'index.js', types: 'index.d.ts' }),
      'node_modules/query-labels/index.js': 'export const labels = {};\n',
      'node_modules/query-labels/index.d.ts': "import type { useQuery } from 'platform/client';\nexport declare const labels: Record<Parameters<typeof useQuery>[0], string>;\n",
    };
    const fs = new MemoryFileSystem(withPackage);
    const { session, checked } = recording();
    fs.write('src/client/main.tsx', `import type { labels } from 'query-labels';\nexport const mine: typeof labels = { 'todos.list': 'All', 'todos.remaining': 'Left' };\n${files['src/client/main.tsx']}`);
    expect((await analyzeProject(fs, { library, typecheck: session, zones: ['client', 'server'] })).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    checked.length = 0;
    // Every query is a key of the package's type: the client's object now lacks the new one.
    fs.write('src/server/index.ts', addQuery(files['src/server/index.ts']!, 1, '1'));
    const found = (await analyzeProject(fs, { library, typecheck: session, zones: ['client', 'server'] })).diagnostics.filter((d) => d.severity === 'error');
    expect(found.map((d) => [d.file, d.message.slice(0, 6)])).toEqual([['src/client/main.tsx', 'TS2741']]);
    expect(checked).toContain('src/client/main.tsx');
  });

  it('checks the client again when a script outside every zone names the platform', async () => {
    const files: Record<string, string> = {
      ...templateFiles('todo'),
      'src/globals.d.ts': "declare const queryLabels: Record<import('platform/types').QueryNames, string>;\n",
    };
    files['src/client/main.tsx'] = `export const mine: typeof queryLabels = { 'todos.list': 'All', 'todos.remaining': 'Left' };\n${files['src/client/main.tsx']}`;
    const fs = new MemoryFileSystem(files);
    const { session, checked } = recording();
    expect((await analyzeProject(fs, { library, typecheck: session, zones: ['client', 'server'] })).diagnostics).toEqual([]);
    checked.length = 0;
    fs.write('src/server/index.ts', addQuery(files['src/server/index.ts']!, 1, '1'));
    const found = (await analyzeProject(fs, { library, typecheck: session, zones: ['client', 'server'] })).diagnostics;
    expect(found.map((d) => [d.file, d.message.slice(0, 6)])).toEqual([['src/client/main.tsx', 'TS2741']]);
    expect(checked).toContain('src/client/main.tsx');
  });
});
