/**
 * Golden cases for the compiler: the base app with one change each, and the diagnostics expected,
 * each located by a marker in the named file (as the manifest fixtures do).
 */
import type { DiagnosticCode } from '../../diagnostics';
import { baseApp, CLIENT, SERVER, TEST } from './base-app';

export interface CompileExpected {
  code: DiagnosticCode;
  file?: string;
  /** The text the span must start at and cover. */
  at?: string;
  nth?: number;
  /** Only the start of the span is compared (type errors span what the checker chooses). */
  startOnly?: boolean;
  message?: string;
  hint?: string;
  primary?: true;
  causedBy?: DiagnosticCode;
}

export interface CompileCase {
  name: string;
  files: Record<string, string | null>;
  expected: CompileExpected[];
  /** Run the bundler too (codes found only when bundling). */
  bundle?: boolean;
}

/** The base app with an installed, untyped (and acknowledged) dependency whose entry is `code`, used by the client. */
function withDependency(name: string, code: string): Record<string, string> {
  const manifest = { ...JSON.parse(baseApp()['app.manifest.json']!), untypedDependencies: [name] };
  return {
    'app.manifest.json': `${JSON.stringify(manifest, null, 2)}\n`,
    'package.json': `${JSON.stringify({ dependencies: { [name]: '1.0.0' } }, null, 2)}\n`,
    [`node_modules/${name}/package.json`]: JSON.stringify({ name, version: '1.0.0', main: 'index.js' }),
    [`node_modules/${name}/index.js`]: code,
    'src/client/main.tsx': `import lib from '${name}';\nconsole.log(lib);\n${CLIENT}`,
  };
}

const server = (from: string, to: string) => SERVER.replace(from, to);
const client = (from: string, to: string) => CLIENT.replace(from, to);

export const compileCases: CompileCase[] = [
  { name: 'valid: the base app', files: {}, expected: [], bundle: true },
  { name: 'valid: an empty file imported for its effect', files: { 'src/shared/empty.ts': '', 'src/client/main.tsx': `import '../shared/empty';\n${CLIENT}` }, expected: [], bundle: true },

  // Module graph and zones
  { name: 'DG1201: client imports server code', files: { 'src/server/db.ts': 'export const x = 1;\n', 'src/client/main.tsx': `import { x } from '../server/db';\nconsole.log(x);\n${CLIENT}` }, expected: [{ code: 'DG1201', file: 'src/client/main.tsx', at: "'../server/db'" }] },
  { name: 'DG1201: client imports the server entrypoint', files: { 'src/client/main.tsx': `import server from '../server/index';\nconsole.log(server);\n${CLIENT}` }, expected: [{ code: 'DG1201', file: 'src/client/main.tsx', at: "'../server/index'", message: 'server entrypoint' }] },
  { name: 'DG1201: absolute import', files: { 'src/client/main.tsx': `import '/src/shared/text';\n${CLIENT}` }, expected: [{ code: 'DG1201', file: 'src/client/main.tsx', at: "'/src/shared/text'" }] },
  { name: 'DG1201: import leaving the root', files: { 'src/shared/text.ts': `export * from '../../../outside';\nexport function clean(text: string): string { return text.trim(); }\n` }, expected: [{ code: 'DG1201', file: 'src/shared/text.ts', at: "'../../../outside'" }] },
  { name: 'DG1201: shared code importing a zone', files: { 'src/shared/text.ts': `import '../client/theme';\nexport function clean(text: string): string { return text.trim(); }\n`, 'src/client/theme.ts': 'export {};\n' }, expected: [{ code: 'DG1201', file: 'src/shared/text.ts', at: "'../client/theme'" }] },
  { name: 'DG1201: code outside src/shared reached by both zones', files: { 'src/lib/util.ts': 'export const one = 1;\n', 'src/client/main.tsx': `import { one } from '../lib/util';\nconsole.log(one);\n${CLIENT}`, 'src/server/index.ts': `import { one } from '../lib/util';\nconsole.log(one);\n${SERVER}` }, expected: [{ code: 'DG1201', file: 'src/lib/util.ts', hint: 'src/shared/' }] },
  { name: 'DG1201: a test importing server code', files: { 'tests/todos.test.ts': `import server from '../src/server/index';\nconsole.log(server);\n${TEST}` }, expected: [{ code: 'DG1201', file: 'tests/todos.test.ts', at: "'../src/server/index'" }] },
  { name: 'DG1202: node built-in in the server', files: { 'src/server/index.ts': `import { readFileSync } from 'node:fs';\nconsole.log(readFileSync);\n${SERVER}` }, expected: [{ code: 'DG1202', file: 'src/server/index.ts', at: "'node:fs'" }] },
  { name: 'DG1202: platform/server in the client', files: { 'src/client/main.tsx': `import { query } from 'platform/server';\nconsole.log(query);\n${CLIENT}` }, expected: [{ code: 'DG1202', file: 'src/client/main.tsx', at: "'platform/server'" }] },
  { name: 'DG1202: the renderer in the server', files: { 'src/server/index.ts': `import { h } from 'preact';\nconsole.log(h);\n${SERVER}` }, expected: [{ code: 'DG1202', file: 'src/server/index.ts', at: "'preact'" }] },
  { name: 'DG1202: a test-only renderer entrypoint', files: { 'src/client/main.tsx': `import { act } from 'preact/test-utils';\nconsole.log(act);\n${CLIENT}` }, expected: [{ code: 'DG1202', file: 'src/client/main.tsx', at: "'preact/test-utils'" }] },
  { name: 'DG1503: both renderer families in the client', files: { 'src/client/main.tsx': `${CLIENT}\nimport React from 'react';\nconsole.log(React);\n` }, expected: [{ code: 'DG1503', file: 'src/client/main.tsx', at: "'react'", message: 'this client selected Preact' }] },
  { name: 'DG1202: React in the server', files: { 'src/server/index.ts': `import { useState } from 'react';\nconsole.log(useState);\n${SERVER}` }, expected: [{ code: 'DG1202', file: 'src/server/index.ts', at: "'react'" }] },
  { name: 'DG1202: an unknown React entrypoint', files: { 'src/client/main.tsx': `import { renderToString } from 'react-dom/server';\nconsole.log(renderToString);\n${CLIENT}` }, expected: [{ code: 'DG1202', file: 'src/client/main.tsx', at: "'react-dom/server'" }] },
  { name: 'DG1203: dynamic import of a variable', files: { 'src/client/main.tsx': `const name = './x';\nvoid import(name);\n${CLIENT}` }, expected: [{ code: 'DG1203', file: 'src/client/main.tsx', at: 'name)', nth: 1, startOnly: true }] },
  { name: 'DG1204: relative import of a missing file', files: { 'src/client/main.tsx': `import { nope } from './missing';\nconsole.log(nope);\n${CLIENT}` }, expected: [{ code: 'DG1204', file: 'src/client/main.tsx', at: "'./missing'" }] },
  { name: 'DG1206: stylesheet in the server', files: { 'src/server/style.css': 'body {}\n', 'src/server/index.ts': `import './style.css';\n${SERVER}` }, expected: [{ code: 'DG1206', file: 'src/server/index.ts', at: "'./style.css'" }] },
  { name: 'valid: stylesheet and image in the client', files: { 'src/client/app.css': 'main { color: red; }\n', 'src/client/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>', 'src/client/main.tsx': `import './app.css';\nimport logo from './logo.svg';\nconsole.log(logo);\n${CLIENT}` }, expected: [], bundle: true },
  { name: 'DG1207: undeclared package', files: { 'src/client/main.tsx': `import confetti from 'canvas-confetti';\nconsole.log(confetti);\n${CLIENT}` }, expected: [{ code: 'DG1207', file: 'src/client/main.tsx', at: "'canvas-confetti'" }] },
  { name: 'DG1208: declared but not installed', files: { 'package.json': '{ "dependencies": { "canvas-confetti": "^1.9.0" } }\n' }, expected: [{ code: 'DG1208', file: 'package.json', at: '"canvas-confetti"' }] },
  { name: 'DG1209: image in a test', files: { 'tests/logo.png': 'png', 'tests/todos.test.ts': `import './logo.png';\n${TEST}` }, expected: [{ code: 'DG1209', file: 'tests/todos.test.ts', at: "'./logo.png'" }] },
  { name: 'DG1210: preact declared', files: { 'package.json': '{ "dependencies": { "preact": "^10.0.0" } }\n', 'node_modules/preact/package.json': JSON.stringify({ name: 'preact', version: '10.0.0' }) }, expected: [{ code: 'DG1210', file: 'package.json', at: '"preact"' }, { code: 'DG1211', file: 'package.json', at: '"preact"' }] },
  { name: 'DG1212: acknowledgment of an undeclared package', files: { 'app.manifest.json': `${JSON.stringify({ ...JSON.parse(baseApp()['app.manifest.json']!), untypedDependencies: ['left-pad'] }, null, 2)}\n` }, expected: [{ code: 'DG1212', file: 'app.manifest.json', at: '"left-pad"' }] },

  // Operations
  {
    name: 'DG1300: not a defineServer call',
    files: { 'src/server/index.ts': server('export default defineServer({', 'const definition = defineServer({').replace(/\}\);\n$/, '});\nexport default definition;\n') },
    expected: [
      { code: 'DG1300', file: 'src/server/index.ts', at: 'definition;', startOnly: true, primary: true },
      // Without the definition its policies are unknown, so ownerId is required here: a server error of its own.
      { code: 'DG1205', file: 'src/server/index.ts', at: '{ title: clean(input.title) }', startOnly: true },
      { code: 'DG1205', file: 'src/client/main.tsx', at: "'todos.list'", startOnly: true, causedBy: 'DG1300' },
      { code: 'DG1205', file: 'src/client/main.tsx', at: "'todos.add'", startOnly: true, causedBy: 'DG1300' },
      { code: 'DG1205', file: 'src/client/main.tsx', at: 'map', startOnly: true, causedBy: 'DG1300' },
      { code: 'DG1205', file: 'src/client/main.tsx', at: 'todo)', startOnly: true, causedBy: 'DG1300' },
      { code: 'DG1205', file: 'src/client/main.tsx', at: '{ title: clean(title) }', startOnly: true, causedBy: 'DG1300' },
      { code: 'DG1205', file: 'tests/todos.test.ts', at: "'todos.add'", startOnly: true, causedBy: 'DG1300' },
      { code: 'DG1205', file: 'tests/todos.test.ts', at: "'todos.list'", startOnly: true, causedBy: 'DG1300' },
    ],
  },
  { name: 'DG1300: a spread in a group', files: { 'src/server/index.ts': server("  endpoints: {\n", "  endpoints: {\n    ...{},\n") }, expected: [{ code: 'DG1300', file: 'src/server/index.ts', at: '...{}', primary: true }] },
  { name: 'DG1300: a group that is not a literal object', files: { 'src/server/index.ts': server("  endpoints: {\n    'GET /api/health': endpoint(async () => new Response('ok')),\n  },", '  endpoints: routes,').replace("import { clean } from '../shared/text';", "import { clean } from '../shared/text';\nconst routes = {};") }, expected: [{ code: 'DG1300', file: 'src/server/index.ts', at: 'routes,', startOnly: true, primary: true }] },
  { name: 'DG1300: an unknown key', files: { 'src/server/index.ts': server('  authPolicies:', '  policies:') }, expected: [{ code: 'DG1300', file: 'src/server/index.ts', at: 'policies', nth: 1, hint: '"authPolicies"', primary: true }, { code: 'DG1205', file: 'src/server/index.ts', at: '{ title: clean(input.title) }', startOnly: true }] },
  { name: 'DG1301: duplicate operation name', files: { 'src/server/index.ts': server("  mutations: {\n", "  mutations: {\n    'todos.add': mutation({ input: {}, handler: async () => {} }),\n") }, expected: [{ code: 'DG1301', file: 'src/server/index.ts', at: "'todos.add'", nth: 2, primary: true }] },
  { name: 'DG1302: malformed endpoint key', files: { 'src/server/index.ts': server("'GET /api/health'", "'get /health'") }, expected: [{ code: 'DG1302', file: 'src/server/index.ts', at: "'get /health'", primary: true }] },
  { name: 'DG1303: operation name with uppercase', files: { 'src/server/index.ts': server("'todos.list': query", "'Todos.List': query"), 'src/client/main.tsx': client("'todos.list'", "'Todos.List'"), 'tests/todos.test.ts': TEST.replace("'todos.list'", "'Todos.List'") }, expected: [{ code: 'DG1303', file: 'src/server/index.ts', at: "'Todos.List'", primary: true }, { code: 'DG1205', file: 'src/client/main.tsx', at: "'Todos.List'", startOnly: true, causedBy: 'DG1303' }, { code: 'DG1205', file: 'src/client/main.tsx', at: 'map', startOnly: true, causedBy: 'DG1303' }, { code: 'DG1205', file: 'src/client/main.tsx', at: 'todo)', startOnly: true, causedBy: 'DG1303' }, { code: 'DG1205', file: 'tests/todos.test.ts', at: "'Todos.List'", startOnly: true, causedBy: 'DG1303' }] },
  { name: 'DG1304: two routes of one shape', files: { 'src/server/index.ts': server("    'GET /api/health'", "    'GET /api/files/:id': endpoint(async () => new Response('a')),\n    'GET /api/files/:fileId': endpoint(async () => new Response('b')),\n    'GET /api/health'") }, expected: [{ code: 'DG1304', file: 'src/server/index.ts', at: "'GET /api/files/:fileId'", primary: true }] },

  // Types and the contract
  { name: 'DG1205: a misspelt query in the client', files: { 'src/client/main.tsx': client("useQuery('todos.list'", "useQuery('todos.lisst'") }, expected: [{ code: 'DG1205', file: 'src/client/main.tsx', at: "'todos.lisst'", startOnly: true, message: 'TS2345' }] },
  { name: 'DG1205: a wrong input shape in a test', files: { 'tests/todos.test.ts': TEST.replace("{ title: 'milk' }", '{ name: 1 }') }, expected: [{ code: 'DG1205', file: 'tests/todos.test.ts', at: 'name: 1', startOnly: true, message: 'TS' }] },
  { name: 'DG1205: insert in a query', files: { 'src/server/index.ts': server("        const rows = await ctx.db.table('todos').find(", "        await ctx.db.table('todos').insert({ title: 'x' });\n        const rows = await ctx.db.table('todos').find(") }, expected: [{ code: 'DG1205', file: 'src/server/index.ts', at: 'insert', startOnly: true, message: 'TS2339' }] },
  { name: 'DG1205: ctx.storage without the capability', files: { 'src/server/index.ts': server("        return { id: row.id };", "        await ctx.storage.put('a', 'b');\n        return { id: row.id };") }, expected: [{ code: 'DG1205', file: 'src/server/index.ts', at: 'storage', startOnly: true, message: 'TS2339' }] },
  { name: 'DG1205: a Map as a result', files: { 'src/server/index.ts': server("        return { id: row.id };", '        return new Map([[row.id, 1]]);') }, expected: [{ code: 'DG1205', file: 'src/server/index.ts', startOnly: true, hint: 'encodable' }] },
  { name: 'DG1205: an interface as a result shape', files: { 'src/server/index.ts': server("import { clean } from '../shared/text';", "import { clean } from '../shared/text';\ninterface Created { id: string }").replace('        return { id: row.id };', '        const created: Created = { id: row.id };\n        return created;') }, expected: [{ code: 'DG1205', file: 'src/server/index.ts', startOnly: true, hint: 'type aliases' }] },
  { name: 'DG1205: ownedTable on a table without ownerId', files: { 'app.manifest.json': baseApp()['app.manifest.json']!.replace(/"ownerId"/g, '"owner"') }, expected: [{ code: 'DG1205', file: 'src/server/index.ts', at: 'todos: ownedTable()', startOnly: true, message: 'ownerId' }, { code: 'DG1205', file: 'src/server/index.ts', at: 'ownerId', nth: 1, startOnly: true }, { code: 'DG1205', file: 'src/server/index.ts', at: '{ title: clean(input.title) }', startOnly: true }] },
  {
    name: 'DG1205 primary: a type error that reaches a result breaks the contract though no consumer fails',
    files: { 'src/server/index.ts': server('title: row.title, done', 'title: row.titel, done') },
    expected: [{ code: 'DG1205', file: 'src/server/index.ts', at: 'titel', startOnly: true, message: 'TS2551', primary: true }],
  },
  {
    name: 'DG1205 primary: in a handler declared apart from the definition',
    files: {
      'src/server/index.ts': server("      handler: async (ctx) => {\n        const rows = await ctx.db.table('todos').find({ where: { ownerId: ctx.auth.appUserId } });\n        return rows.map((row) => ({ id: row.id, title: row.title, done: row.done }));\n      },", '      handler: listTodos,').replace(
        'export default defineServer({',
        "async function listTodos(ctx: QueryCtx) {\n  const rows = await ctx.db.table('todos').all();\n  return rows.map((row) => ({ id: row.id, title: row.name }));\n}\n\nexport default defineServer({",
      ).replace("import { defineServer,", "import { type QueryCtx, defineServer,"),
    },
    expected: [{ code: 'DG1205', file: 'src/server/index.ts', at: 'name }', startOnly: true, message: 'TS2339', primary: true }],
  },
  {
    name: 'DG1205: a server type error that leaves every result as it was is not primary',
    files: { 'src/server/index.ts': server('        return { id: row.id };', "        const count: number = 'one';\n        return { id: row.id, count };") },
    expected: [{ code: 'DG1205', file: 'src/server/index.ts', at: 'count: number', startOnly: true, message: 'TS2322' }],
  },
  { name: 'DG1205: a syntax error', files: { 'src/client/main.tsx': client('return (', 'return ((') }, expected: [{ code: 'DG1205', file: 'src/client/main.tsx', startOnly: true, message: 'TS1005' }] },

  // Budgets and assets (bundling)
  { name: 'DG1402: public/index.html', files: { 'public/index.html': '<!doctype html>' }, expected: [{ code: 'DG1402', file: 'public/index.html' }], bundle: true },
  { name: 'DG1403: a reserved public path', files: { 'public/_platform/x.txt': 'x' }, expected: [{ code: 'DG1403', file: 'public/_platform/x.txt' }], bundle: true },
  { name: 'DG1404: missing favicon', files: { 'public/favicon.svg': null }, expected: [{ code: 'DG1404', file: 'app.manifest.json', at: '"/favicon.svg"' }] },
  { name: 'DG1405: client bundle over its budget', files: { 'app.manifest.json': `${JSON.stringify({ ...JSON.parse(baseApp()['app.manifest.json']!), budgets: { clientBundleBytes: 1000 } }, null, 2)}\n` }, expected: [{ code: 'DG1405', file: 'src/client/main.tsx', message: 'over its budget of 1000 bytes' }], bundle: true },
  { name: 'DG1406: the app share over 400 KiB (warning)', files: { 'src/client/big.ts': `export const big = ${JSON.stringify('x'.repeat(420 * 1024))};\n`, 'src/client/main.tsx': `import { big } from './big';\nconsole.log(big.length);\n${CLIENT}` }, expected: [{ code: 'DG1406', file: 'src/client/main.tsx' }], bundle: true },
  { name: 'DG1501: bundling fails after analysis passed', files: withDependency('broken-lib', 'export const = ;\n'), expected: [{ code: 'DG1214', file: 'app.manifest.json', at: '"broken-lib"' }, { code: 'DG1501', file: 'node_modules/broken-lib/index.js', startOnly: true, at: '=' }], bundle: true },
  { name: 'DG1502: a dependency imports a built-in', files: withDependency('fs-lib', "import { readFileSync } from 'fs';\nexport default function lib() { return readFileSync; }\n"), expected: [{ code: 'DG1214', file: 'app.manifest.json', at: '"fs-lib"' }, { code: 'DG1502' }], bundle: true },
  { name: 'DG1503: a dependency brings in the unselected renderer', files: { ...withDependency('react-widget', "import React from 'react';\nexport default function lib() { return React; }\n"), 'node_modules/react/package.json': JSON.stringify({ name: 'react', version: '19.0.0', main: 'index.js' }), 'node_modules/react/index.js': 'export default { version: "19" };\n' }, expected: [{ code: 'DG1214', file: 'app.manifest.json', at: '"react-widget"' }, { code: 'DG1503', message: 'react' }], bundle: true },
];
