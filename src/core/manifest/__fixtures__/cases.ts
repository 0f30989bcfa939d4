/**
 * Fixture projects for manifest validation, one per rule: the project's files and the diagnostics
 * expected, each located by the first (or nth) occurrence of a marker in app.manifest.json.
 */
import type { DiagnosticCode } from '../../diagnostics';

export interface Expected {
  code: DiagnosticCode;
  /** The text the span must start at and cover (length is checked too); omitted when no span is expected. */
  at?: string;
  /** Which occurrence of `at` (1-based). */
  nth?: number;
  /** Search for `at` only after the first occurrence of this text. */
  after?: string;
  /** A substring the hint must contain. */
  hint?: string;
  /** A substring the message must contain. */
  message?: string;
  /** When set, only the start of the span is checked (objects and arrays are pointed at by their opening). */
  startOnly?: boolean;
}

export interface ManifestCase {
  name: string;
  files: Record<string, string>;
  expected: Expected[];
}

/** The smallest valid app sources, so the valid fixtures pass a full `platform check` too. */
const SOURCES = {
  'src/client/main.tsx': 'export {};\n',
  'src/server/index.ts': "import { defineServer } from 'platform/server';\n\nexport default defineServer({});\n",
};

const BASE = {
  format: 'platform.application-source.v0',
  name: 'todo-app',
  entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' },
};

/** A project whose manifest is BASE with `patch` merged in (a value of undefined removes the key). */
function project(patch: Record<string, unknown>, extra: Record<string, string> = {}): Record<string, string> {
  const manifest: Record<string, unknown> = { ...BASE, ...patch };
  for (const [k, v] of Object.entries(patch)) if (v === undefined) delete manifest[k];
  return { 'app.manifest.json': `${JSON.stringify(manifest, null, 2)}\n`, ...SOURCES, ...extra };
}

function raw(text: string): Record<string, string> {
  return { 'app.manifest.json': text, ...SOURCES };
}

const DB = (tables: Record<string, unknown>) => ({ capabilities: ['database'], database: { tables } });

export const FULL_MANIFEST = {
  $schema: './node_modules/platform-playground/public/app.manifest.schema.json',
  app: { spa: true, title: 'Todos', language: 'en-GB', description: 'A todo list.', favicon: '/favicon.svg' },
  capabilities: ['database', 'storage'],
  database: {
    version: 3,
    tables: {
      lists: { fields: { ownerId: { type: 'string' }, title: { type: 'string', maxLength: 120, collate: 'nocase' } } },
      todos: {
        fields: {
          ownerId: { type: 'string' },
          listId: { type: 'ref', table: 'lists', onDelete: 'cascade', onUpdate: 'noAction' },
          parentId: { type: 'ref', table: 'todos', optional: true, onDelete: 'setNull' },
          title: { type: 'string', maxLength: 200 },
          state: { type: 'string', enum: ['open', 'done'], default: 'open' },
          priority: { type: 'number', default: 0 },
          done: { type: 'boolean', default: false },
          due: { type: 'datetime', optional: true },
          attachment: { type: 'bytes', optional: true },
          meta: { type: 'json', optional: true },
          slug: { type: 'string', unique: true },
          titleLength: { type: 'number', generated: { expression: 'length(title)', stored: true } },
        },
        indexes: {
          byOwner: ['ownerId'],
          byList: { columns: ['listId', { column: 'title', collate: 'nocase', desc: true }, { expression: 'lower(title)', desc: false }], unique: false, where: 'done = 0' },
        },
        unique: [['listId', 'title']],
        checks: { titleNotBlank: "trim(title) <> ''" },
        idSource: 'runtime',
      },
      tags: { fields: { label: { type: 'string' } }, idSource: 'application' },
    },
  },
  storage: { maxObjectBytes: 1048576, readBytes: 134217728, writeBytes: 1 },
  client: { runtime: { provider: 'preact', source: 'platform' } },
  budgets: { queryRows: 10000, mutationWrites: 1000, requestBytes: 4194304, responseBytes: 1, clientBundleBytes: 10485760, liveConnections: 0, streamedBytes: 67108864 },
};

export const manifestCases: ManifestCase[] = [
  // Valid projects.
  { name: 'valid: minimal', files: project({}), expected: [] },
  { name: 'valid: every feature', files: project(FULL_MANIFEST, { 'public/favicon.svg': '<svg/>' }), expected: [] },
  { name: 'valid: storage {} means defaults', files: project({ capabilities: ['storage'], storage: {} }), expected: [] },

  // DG1001
  { name: 'DG1001: no manifest', files: { ...SOURCES }, expected: [{ code: 'DG1001' }] },

  // DG1002: JSON syntax and shape
  { name: 'DG1002: trailing comma', files: raw('{\n  "format": "platform.application-source.v0",\n}\n'), expected: [{ code: 'DG1002', at: ',', after: 'v0"', message: 'Trailing comma' }] },
  { name: 'DG1002: comment', files: raw('{\n  // a comment\n  "name": "x"\n}\n'), expected: [{ code: 'DG1002', at: '// a comment', message: 'Comments are not allowed' }] },
  { name: 'DG1002: truncated file', files: raw('{\n  "format": "platform.application-source.v0",\n  "name": "to'), expected: [{ code: 'DG1002', at: '"to', message: 'Unterminated string' }] },
  { name: 'DG1002: not an object', files: raw('["platform.application-source.v0"]\n'), expected: [{ code: 'DG1002', at: '["platform.application-source.v0"]', message: 'must hold a JSON object' }] },
  {
    name: 'DG1002: duplicate key',
    files: raw('{\n  "format": "platform.application-source.v0",\n  "name": "one",\n  "name": "two",\n  "entrypoints": { "client": "src/client/main.tsx", "server": "src/server/index.ts" }\n}\n'),
    expected: [{ code: 'DG1002', at: '"name"', nth: 2, message: 'Duplicate property "name"' }],
  },

  // DG1002: schema rules at the top level
  { name: 'DG1002: missing format', files: project({ format: undefined }), expected: [{ code: 'DG1002', at: '{', startOnly: true, message: '"format"' }] },
  { name: 'DG1002: wrong format', files: project({ format: 'platform.application-source.v1' }), expected: [{ code: 'DG1002', at: '"platform.application-source.v1"' }] },
  { name: 'DG1002: name pattern', files: project({ name: 'Todo_App' }), expected: [{ code: 'DG1002', at: '"Todo_App"', hint: 'lowercase' }] },
  { name: 'DG1002: name too short', files: project({ name: 'a' }), expected: [{ code: 'DG1002', at: '"a"' }] },
  { name: 'DG1002: name not a string', files: project({ name: 42 }), expected: [{ code: 'DG1002', at: '42', message: 'must be a string' }] },
  { name: 'DG1002: entrypoints missing server', files: project({ entrypoints: { client: 'src/client/main.tsx' } }), expected: [{ code: 'DG1002', at: '"entrypoints"', message: '"server"' }] },
  { name: 'DG1002: entrypoint empty', files: project({ entrypoints: { client: '', server: 'src/server/index.ts' } }), expected: [{ code: 'DG1002', at: '""' }] },
  { name: 'DG1002: client runtime provider', files: project({ client: { runtime: { provider: 'react' } } }), expected: [{ code: 'DG1002', at: '"react"' }] },
  { name: 'DG1002: client runtime without provider', files: project({ client: { runtime: { source: 'platform' } } }), expected: [{ code: 'DG1002', at: '"runtime"', message: '"provider"' }] },

  // DG1002: app
  { name: 'DG1002: app.title too long', files: project({ app: { title: 'x'.repeat(121) } }), expected: [{ code: 'DG1002', at: `"${'x'.repeat(121)}"`, message: 'at most 120' }] },
  { name: 'DG1002: app.title empty', files: project({ app: { title: '' } }), expected: [{ code: 'DG1002', at: '""', message: 'at least 1' }] },
  { name: 'DG1002: app.language', files: project({ app: { language: 'english!' } }), expected: [{ code: 'DG1002', at: '"english!"' }] },
  { name: 'DG1002: app.description too long', files: project({ app: { description: 'd'.repeat(301) } }), expected: [{ code: 'DG1002', at: `"${'d'.repeat(301)}"` }] },
  { name: 'DG1002: app.favicon pattern', files: project({ app: { favicon: 'favicon.svg' } }), expected: [{ code: 'DG1002', at: '"favicon.svg"' }] },
  { name: 'DG1002: app.spa not boolean', files: project({ app: { spa: 'yes' } }), expected: [{ code: 'DG1002', at: '"yes"', message: 'true or false' }] },

  // DG1002: entrypoint files
  { name: 'DG1002: missing entrypoint file', files: project({ entrypoints: { client: 'src/client/main.tsx', server: 'src/server/main.ts' } }), expected: [{ code: 'DG1002', at: '"src/server/main.ts"', message: 'does not exist' }] },
  { name: 'DG1002: entrypoint is a directory', files: project({ entrypoints: { client: 'src/client', server: 'src/server/index.ts' } }), expected: [{ code: 'DG1002', at: '"src/client"', message: 'directory' }] },

  // DG1101
  { name: 'DG1101: absolute entrypoint', files: project({ entrypoints: { client: '/src/client/main.tsx', server: 'src/server/index.ts' } }), expected: [{ code: 'DG1101', at: '"/src/client/main.tsx"', message: 'absolute' }] },
  { name: 'DG1101: escaping entrypoint', files: project({ entrypoints: { client: 'src/client/main.tsx', server: '../other/index.ts' } }), expected: [{ code: 'DG1101', at: '"../other/index.ts"', message: 'outside the project' }] },
  { name: 'DG1101: drive-letter entrypoint', files: project({ entrypoints: { client: 'C:/app/main.tsx', server: 'src/server/index.ts' } }), expected: [{ code: 'DG1101', at: '"C:/app/main.tsx"' }] },
  { name: 'valid: dot segments that stay inside', files: project({ entrypoints: { client: './src/client/../client/main.tsx', server: 'src/server/index.ts' } }), expected: [] },

  // DG1003 at every depth
  { name: 'DG1003: unknown top-level property', files: project({ nmae: 'x' }), expected: [{ code: 'DG1003', at: '"nmae"', hint: 'Did you mean "name"?' }] },
  { name: 'DG1003: unknown entrypoints key', files: project({ entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts', sever: 'x' } }), expected: [{ code: 'DG1003', at: '"sever"', hint: 'Did you mean "server"?' }] },
  { name: 'DG1003: unknown app key', files: project({ app: { titel: 'x' } }), expected: [{ code: 'DG1003', at: '"titel"', hint: 'Did you mean "title"?' }] },
  { name: 'DG1003: unknown storage key', files: project({ capabilities: ['storage'], storage: { maxObjectByte: 10 } }), expected: [{ code: 'DG1003', at: '"maxObjectByte"', hint: '"maxObjectBytes"' }] },
  { name: 'DG1003: unknown budget', files: project({ budgets: { queryRow: 10 } }), expected: [{ code: 'DG1003', at: '"queryRow"', hint: '"queryRows"' }] },
  { name: 'DG1003: unknown field key', files: project(DB({ todos: { fields: { title: { type: 'string', optinal: true } } } })), expected: [{ code: 'DG1003', at: '"optinal"', hint: '"optional"' }] },
  { name: 'DG1003: unknown table key', files: project(DB({ todos: { fields: { title: { type: 'string' } }, index: {} } })), expected: [{ code: 'DG1003', at: '"index"', hint: '"indexes"' }] },
  { name: 'DG1003: unknown index column key', files: project(DB({ todos: { fields: { title: { type: 'string' } }, indexes: { byTitle: { columns: [{ column: 'title', collation: 'nocase' }] } } } })), expected: [{ code: 'DG1003', at: '"collation"', hint: '"collate"' }] },
  { name: 'DG1003: unknown generated key', files: project(DB({ todos: { fields: { n: { type: 'number', generated: { expression: '1', virtual: true } } } } })), expected: [{ code: 'DG1003', at: '"virtual"' }] },
  { name: 'DG1003: unknown client key', files: project({ client: { renderer: 'preact' } }), expected: [{ code: 'DG1003', at: '"renderer"', hint: 'runtime' }] },

  // Capabilities and blocks, both directions
  { name: 'DG1002: unknown capability', files: project({ capabilities: ['stroage'] }), expected: [{ code: 'DG1002', at: '"stroage"', hint: 'Did you mean "storage"?' }] },
  { name: 'DG1002: duplicate capability', files: project({ capabilities: ['database', 'database'], database: { tables: {} } }), expected: [{ code: 'DG1002', at: '"database"', nth: 2, message: 'more than once' }] },
  { name: 'DG1002: database block without capability', files: project({ database: { tables: {} } }), expected: [{ code: 'DG1002', at: '"database"', hint: 'Add "database" to "capabilities"' }] },
  { name: 'DG1002: database capability without block', files: project({ capabilities: ['database'] }), expected: [{ code: 'DG1002', at: '"database"', message: 'no "database" block' }] },
  { name: 'DG1002: storage block without capability', files: project({ storage: {} }), expected: [{ code: 'DG1002', at: '"storage"' }] },
  { name: 'DG1002: storage capability without block', files: project({ capabilities: ['database', 'storage'], database: { tables: {} } }), expected: [{ code: 'DG1002', at: '"storage"', hint: '"storage": {}' }] },
  { name: 'DG1002: database without tables', files: project({ capabilities: ['database'], database: {} }), expected: [{ code: 'DG1002', at: '"database"', nth: 2, message: '"tables"' }] },

  // Database schema
  { name: 'DG1002: unknown field type', files: project(DB({ todos: { fields: { title: { type: 'strin' } } } })), expected: [{ code: 'DG1002', at: '"strin"', hint: 'Did you mean "string"?' }] },
  { name: 'DG1002: unknown type is reported once', files: project(DB({ todos: { fields: { done: { type: 'bool', default: false, maxLength: 3 } } } })), expected: [{ code: 'DG1002', at: '"bool"', hint: '"boolean"' }] },
  { name: 'DG1002: field without type', files: project(DB({ todos: { fields: { title: { optional: true } } } })), expected: [{ code: 'DG1002', at: '"title"', message: '"type"' }] },
  { name: 'DG1002: table name pattern', files: project(DB({ '1todos': { fields: {} } })), expected: [{ code: 'DG1002', at: '"1todos"' }] },
  { name: 'DG1002: field name pattern', files: project(DB({ todos: { fields: { 'due-date': { type: 'datetime' } } } })), expected: [{ code: 'DG1002', at: '"due-date"' }] },
  { name: 'DG1002: reserved field id', files: project(DB({ todos: { fields: { id: { type: 'string' } } } })), expected: [{ code: 'DG1002', at: '"id"', message: 'reserved' }] },
  { name: 'DG1002: reserved field createdAt', files: project(DB({ todos: { fields: { createdAt: { type: 'datetime' } } } })), expected: [{ code: 'DG1002', at: '"createdAt"', message: 'reserved' }] },
  { name: 'DG1002: reserved field in another case', files: project(DB({ todos: { fields: { UpdatedAt: { type: 'datetime' } } } })), expected: [{ code: 'DG1002', at: '"UpdatedAt"', message: 'reserved' }] },
  { name: 'DG1002: reserved field rowid', files: project(DB({ todos: { fields: { rowid: { type: 'number' } } } })), expected: [{ code: 'DG1002', at: '"rowid"', hint: 'SQLite' }] },
  { name: 'DG1002: fields differing in case', files: project(DB({ todos: { fields: { title: { type: 'string' }, Title: { type: 'string' } } } })), expected: [{ code: 'DG1002', at: '"Title"', message: 'differ only in case' }] },
  { name: 'DG1002: index names undeclared field', files: project(DB({ todos: { fields: { title: { type: 'string' } }, indexes: { byTitle: ['titel'] } } })), expected: [{ code: 'DG1002', at: '"titel"', hint: 'Did you mean "title"?' }] },
  { name: 'DG1002: index object names undeclared field', files: project(DB({ todos: { fields: { title: { type: 'string' } }, indexes: { byOwner: { columns: [{ column: 'ownerId' }] } } } })), expected: [{ code: 'DG1002', at: '"ownerId"', message: 'does not declare' }] },
  { name: 'valid: index expressions need no declared field', files: project(DB({ todos: { fields: { title: { type: 'string' } }, indexes: { lower: { columns: [{ expression: 'lower(title)' }] } } } })), expected: [] },
  { name: 'DG1002: unique group names undeclared field', files: project(DB({ todos: { fields: { title: { type: 'string' } }, unique: [['title', 'owner']] } })), expected: [{ code: 'DG1002', at: '"owner"' }] },
  { name: 'DG1002: empty index', files: project(DB({ todos: { fields: { title: { type: 'string' } }, indexes: { none: [] } } })), expected: [{ code: 'DG1002', at: '[]', message: 'at least 1 item' }] },
  { name: 'DG1002: index column of the wrong type', files: project(DB({ todos: { fields: { title: { type: 'string' } }, indexes: { byTitle: { columns: [7] } } } })), expected: [{ code: 'DG1002', at: '7', message: 'must be an object' }] },
  { name: 'DG1002: bad collate', files: project(DB({ todos: { fields: { title: { type: 'string', collate: 'nocas' } } } })), expected: [{ code: 'DG1002', at: '"nocas"', hint: '"nocase"' }] },
  { name: 'DG1002: bad idSource', files: project(DB({ todos: { fields: {}, idSource: 'app' } })), expected: [{ code: 'DG1002', at: '"app"' }] },
  { name: 'DG1002: empty check', files: project(DB({ todos: { fields: {}, checks: { c: '' } } })), expected: [{ code: 'DG1002', at: '""' }] },
  { name: 'DG1002: database.version 0', files: project({ capabilities: ['database'], database: { tables: {}, version: 0 } }), expected: [{ code: 'DG1002', at: '0', after: '"version"', message: 'at least 1' }] },
  { name: 'DG1002: enum empty', files: project(DB({ todos: { fields: { s: { type: 'string', enum: [] } } } })), expected: [{ code: 'DG1002', at: '[]' }] },
  { name: 'DG1002: default of an object', files: project(DB({ todos: { fields: { s: { type: 'string', default: { a: 1 } } } } })), expected: [{ code: 'DG1002', at: '{', after: '"default"', startOnly: true, message: 'unusable value' }] },
  { name: 'DG1002: maxLength on a number', files: project(DB({ todos: { fields: { n: { type: 'number', maxLength: 3 } } } })), expected: [{ code: 'DG1002', at: '"maxLength"', message: 'only to string fields' }] },
  { name: 'DG1002: ref without table', files: project(DB({ todos: { fields: { listId: { type: 'ref' } } } })), expected: [{ code: 'DG1002', at: '"listId"', message: 'names no "table"' }] },
  { name: 'DG1002: ref to undeclared table', files: project(DB({ todos: { fields: { listId: { type: 'ref', table: 'list' } } }, lists: { fields: {} } })), expected: [{ code: 'DG1002', at: '"list"', hint: '"lists"' }] },
  { name: 'DG1002: table on a non-ref', files: project(DB({ todos: { fields: { listId: { type: 'string', table: 'todos' } } } })), expected: [{ code: 'DG1002', at: '"table"', message: 'only to ref fields' }] },
  { name: 'DG1002: setNull on a required ref', files: project(DB({ todos: { fields: { parentId: { type: 'ref', table: 'todos', onDelete: 'setNull' } } } })), expected: [{ code: 'DG1002', at: '"setNull"' }] },
  { name: 'DG1002: default of the wrong type', files: project(DB({ todos: { fields: { n: { type: 'number', default: 'zero' } } } })), expected: [{ code: 'DG1002', at: '"zero"' }] },
  { name: 'DG1002: default outside the enum', files: project(DB({ todos: { fields: { s: { type: 'string', enum: ['open', 'done'], default: 'opne' } } } })), expected: [{ code: 'DG1002', at: '"opne"', hint: '"open"' }] },

  // Limits and budgets
  { name: 'DG1002: maxObjectBytes above ceiling', files: project({ capabilities: ['storage'], storage: { maxObjectBytes: 26214401 } }), expected: [{ code: 'DG1002', at: '26214401', message: 'ceiling of 26214400', hint: 'never raised' }] },
  { name: 'DG1002: readBytes above ceiling', files: project({ capabilities: ['storage'], storage: { readBytes: 134217729 } }), expected: [{ code: 'DG1002', at: '134217729', message: 'ceiling' }] },
  { name: 'DG1002: writeBytes zero', files: project({ capabilities: ['storage'], storage: { writeBytes: 0 } }), expected: [{ code: 'DG1002', at: '0', after: '"writeBytes"', message: 'at least 1' }] },
  { name: 'DG1002: queryRows above maximum', files: project({ budgets: { queryRows: 10001 } }), expected: [{ code: 'DG1002', at: '10001', message: 'ceiling of 10000' }] },
  { name: 'DG1002: clientBundleBytes above maximum', files: project({ budgets: { clientBundleBytes: 10485761 } }), expected: [{ code: 'DG1002', at: '10485761' }] },
  { name: 'DG1002: liveConnections negative', files: project({ budgets: { liveConnections: -1 } }), expected: [{ code: 'DG1002', at: '-1', message: 'at least 0' }] },
  { name: 'DG1002: budget not an integer', files: project({ budgets: { requestBytes: 1.5 } }), expected: [{ code: 'DG1002', at: '1.5', message: 'an integer' }] },

  // DG1404
  { name: 'DG1404: favicon missing', files: project({ app: { favicon: '/favicon.svg' } }), expected: [{ code: 'DG1404', at: '"/favicon.svg"', hint: 'public/favicon.svg' }] },
  { name: 'DG1404: favicon escaping public', files: project({ app: { favicon: '/../app.manifest.json' } }), expected: [{ code: 'DG1404', at: '"/../app.manifest.json"' }] },

  // All problems at once.
  {
    name: 'every problem of one manifest at once',
    files: project({
      format: 'platform.app.v0',
      name: 'X',
      entrypoints: { client: '/abs.tsx', server: 'src/server/missing.ts' },
      nmae: 'x',
      capabilities: ['database', 'stroage'],
      database: { tables: { todos: { fields: { id: { type: 'string' }, title: { type: 'strin' } }, indexes: { byOwner: ['ownerId'] } } } },
      budgets: { queryRows: 20000 },
      app: { favicon: '/icon.png' },
    }),
    expected: [
      { code: 'DG1002', at: '"platform.app.v0"' },
      { code: 'DG1002', at: '"X"' },
      { code: 'DG1101', at: '"/abs.tsx"' },
      { code: 'DG1002', at: '"src/server/missing.ts"' },
      { code: 'DG1003', at: '"nmae"' },
      { code: 'DG1002', at: '"stroage"' },
      { code: 'DG1002', at: '"id"' },
      { code: 'DG1002', at: '"strin"' },
      { code: 'DG1002', at: '"ownerId"' },
      { code: 'DG1002', at: '20000' },
      { code: 'DG1404', at: '"/icon.png"' },
    ],
  },
];
