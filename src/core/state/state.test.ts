import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../../adapters/node/sqljs';
import { type FieldDeclaration, type Manifest, validateManifestText } from '../manifest';
import { personaAuth, AppRuntime, schemaIdentity, type SqlDriver, type SqlDriverFactory, SqlObjectStore } from '../runtime';
import { defineServer, mutation, ownedTable, query } from '../../modules/server';
import { fingerprint, RICH } from './__fixtures__/rich';
import { sampleStateExport } from './__fixtures__/sample';
import {
  exportState,
  importState,
  importStateText,
  MAX_STATE_EXPORT_BYTES,
  parseStateExport,
  STATE_EXPORT_PROTOCOL,
  stateSchemaIdentity,
  type StateExportDocument,
} from '.';

const TEMPLATES = join(import.meta.dirname, '../../../templates');
let factory: SqlDriverFactory;
beforeAll(async () => {
  factory = await nodeSqlDriverFactory();
});

function templateManifest(id: string): Manifest {
  const result = validateManifestText(readFileSync(join(TEMPLATES, id, 'app.manifest.json'), 'utf8'));
  if (!result.manifest) throw new Error(`templates/${id} has an invalid manifest`);
  return result.manifest;
}
const templateIds = readdirSync(TEMPLATES).filter((name) => !name.includes('.'));

function exportOk(driver: SqlDriver, manifest: Manifest): StateExportDocument {
  const result = exportState(driver, manifest, { now: new Date(Date.UTC(2026, 0, 2)) });
  if (!result.ok) throw new Error(result.diagnostic.message);
  return result.document;
}

describe('schema identity', () => {
  it('is the identity the runtime stamps on a database, as sha256:<hex>', () => {
    for (const id of templateIds) {
      const manifest = templateManifest(id);
      expect(stateSchemaIdentity(manifest)).toBe(`sha256:${schemaIdentity(manifest)}`);
    }
    expect(stateSchemaIdentity({})).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('ignores key order and changes with the declaration', () => {
    const a = { database: { tables: { t: { fields: { a: { type: 'string' as const }, b: { type: 'number' as const } } } } } };
    const b = { database: { tables: { t: { fields: { b: { type: 'number' as const }, a: { type: 'string' as const } } } } } };
    expect(stateSchemaIdentity(a)).toBe(stateSchemaIdentity(b));
    expect(stateSchemaIdentity({ database: { ...a.database, version: 2 } })).not.toBe(stateSchemaIdentity(a));
  });
});

describe('round trips over sql.js', () => {
  for (const id of templateIds) {
    it(`templates/${id}: import a sample, export it back unchanged, and the runtime accepts the database`, async () => {
      const manifest = templateManifest(id);
      const sample = sampleStateExport(manifest, 25, 7);
      const driver = factory();
      const imported = importState(driver, manifest, sample);
      expect(imported).toEqual({ ok: true, counts: Object.fromEntries(Object.keys(manifest.database?.tables ?? {}).map((t) => [t, 25])) });
      expect(exportOk(driver, manifest)).toEqual(sample);

      // The runtime opens the imported database as its own and serves its rows.
      const runtime = new AppRuntime({ manifest, definition: {}, driver });
      expect(runtime.manifest.name).toBe(manifest.name);
      const copy = factory(driver.export!());
      expect(exportOk(copy, manifest)).toEqual(sample);
    });
  }

  it('exports what the runtime wrote through its table API and imports it into a fresh database', async () => {
    const manifest = templateManifest('todo');
    const definition = defineServer({
      queries: { 'todos.list': query({ input: {}, handler: (ctx: any) => ctx.db.table('todos').all() }) },
      mutations: {
        'todos.add': mutation({ input: { title: 'string' }, handler: (ctx: any, input: { title: string }) => ctx.db.table('todos').insert({ title: input.title }) }),
      },
      authPolicies: { todos: ownedTable() },
    } as never);
    const source = factory();
    const runtime = new AppRuntime({ manifest, definition, driver: source });
    for (const title of ['milk', 'eggs', '$date']) expect((await runtime.call(personaAuth('todo', 'alice'), 'mutation', 'todos.add', { title })).status).toBe(200);
    await runtime.call(personaAuth('todo', 'bob'), 'mutation', 'todos.add', { title: 'bread' });
    const document = exportOk(source, manifest);
    expect(document.tables.todos).toHaveLength(4);
    expect(JSON.parse(JSON.stringify(document))).toEqual(document);

    const target = factory();
    expect(importState(target, manifest, JSON.parse(JSON.stringify(document)))).toEqual({ ok: true, counts: { todos: 4 } });
    const restored = new AppRuntime({ manifest, definition, driver: target });
    const alice = await restored.call(personaAuth('todo', 'alice'), 'query', 'todos.list', {});
    expect((alice.result as Array<{ title: string }>).map((t) => t.title)).toEqual(['milk', 'eggs', '$date']);
    const bob = await restored.call(personaAuth('todo', 'bob'), 'query', 'todos.list', {});
    expect((bob.result as Array<{ title: string }>).map((t) => t.title)).toEqual(['bread']);
  });

  it('keeps every field type, optional and default values, refs and json with $ keys; leaves generated fields out', () => {
    const sample = sampleStateExport(RICH, 12, 3);
    const driver = factory();
    expect(importState(driver, RICH, sample).ok).toBe(true);
    const back = exportOk(driver, RICH);
    expect(back).toEqual(sample);
    const note = back.tables.notes![4] as Record<string, unknown>;
    expect(note).not.toHaveProperty('titleLength');
    expect(note.meta).toEqual({ n: 4, list: [1, 'two', null], nested: { $escape: { $date: 'not a date, escaped' } } });
    expect(driver.all('SELECT titleLength, length(title) AS l FROM notes LIMIT 1')[0]).toMatchObject({ titleLength: expect.any(Number) });
  });

  it('accepts rows that refer to each other in any order (a child before its parent, cycles)', () => {
    const doc = sampleStateExport(RICH, 0);
    const at = { $date: '2026-01-01T00:00:00.000Z' };
    doc.tables.folders = [
      { id: 'b', createdAt: at, updatedAt: at, name: 'child', parent: 'a' },
      { id: 'a', createdAt: at, updatedAt: at, name: 'root', parent: 'b' },
    ];
    doc.tables.notes = [{ id: 'n', createdAt: at, updatedAt: at, folder: 'b', title: 'x' }];
    const driver = factory();
    expect(importState(driver, RICH, doc)).toEqual({ ok: true, counts: { folders: 2, notes: 1 } });
    // A required field left out takes its declared default.
    expect(exportOk(driver, RICH).tables.notes![0]).toMatchObject({ kind: 'plain', pinned: false });
    expect(driver.all('PRAGMA foreign_keys')[0]).toEqual({ foreign_keys: 1 });
  });

  it('replaces every row of every table and leaves stored objects alone', async () => {
    const manifest = templateManifest('files');
    const driver = factory();
    expect(importState(driver, manifest, sampleStateExport(manifest, 10, 1)).ok).toBe(true);
    await new SqlObjectStore(driver).put({ key: 'a/b.txt', size: 3, contentType: 'text/plain', uploadedAt: 1, bytes: new Uint8Array([1, 2, 3]) });
    const second = sampleStateExport(manifest, 3, 2);
    expect(importState(driver, manifest, second)).toEqual({ ok: true, counts: { files: 3 } });
    expect(exportOk(driver, manifest)).toEqual(second);
    expect(await new SqlObjectStore(driver).head('a/b.txt')).toMatchObject({ size: 3 });
    // Objects are not database records: the export carries neither their bytes nor their metadata.
    expect(JSON.stringify(exportOk(driver, manifest))).not.toContain('a/b.txt');
  });

  it('exports an app without a database, and a database the runtime never initialised, as empty', () => {
    const manifest = templateManifest('todo');
    const none = { ...manifest, database: undefined, capabilities: [] } as Manifest;
    expect(exportOk(factory(), none)).toMatchObject({ protocol: STATE_EXPORT_PROTOCOL, app: 'todo', database: null, tables: {} });
    expect(exportOk(factory(), manifest).tables).toEqual({ todos: [] });
    const driver = factory();
    expect(importState(driver, none, exportOk(factory(), none))).toEqual({ ok: true, counts: {} });
  });
});

describe('refusals: precise codes, nothing written', () => {
  const manifest = RICH;
  const valid = () => sampleStateExport(manifest, 4, 5);
  const at = { $date: '2026-01-01T00:00:00.000Z' };

  type Case = [name: string, make: () => unknown, code: 'DG1822' | 'DG1824', detail?: string];
  const cases: Case[] = [
    ['not an object', () => [1, 2], 'DG1822'],
    ['null', () => null, 'DG1822'],
    ['wrong protocol', () => ({ ...valid(), protocol: 'platform.state-export.v1' }), 'DG1822'],
    ['no protocol', () => ({ ...valid(), protocol: undefined }), 'DG1822'],
    ['unknown key', () => ({ ...valid(), extra: 1 }), 'DG1822'],
    ['bad app name', () => ({ ...valid(), app: 'Bad Name' }), 'DG1822'],
    ['bad schema', () => ({ ...valid(), schema: 'md5:abc' }), 'DG1822'],
    ['bad exportedAt', () => ({ ...valid(), exportedAt: 'yesterday' }), 'DG1822'],
    ['tables not an object', () => ({ ...valid(), tables: [] }), 'DG1822'],
    ['schema contradicts database', () => ({ ...valid(), database: { tables: {} } }), 'DG1822'],
    ['rows of an undeclared table', () => ({ ...valid(), tables: { ...valid().tables, ghosts: [] } }), 'DG1822'],
    ['rows not an array', () => ({ ...valid(), tables: { notes: {} } }), 'DG1822'],
    ['row not an object', () => ({ ...valid(), tables: { notes: [7] } }), 'DG1822'],
    ['row without id', () => ({ ...valid(), tables: { notes: [{ createdAt: at, updatedAt: at }] } }), 'DG1822'],
    ['row with a plain-string date', () => ({ ...valid(), tables: { notes: [{ id: 'x', createdAt: '2026-01-01', updatedAt: at }] } }), 'DG1822'],
    ['malformed $bytes', () => ({ ...valid(), tables: { notes: [{ id: 'x', createdAt: at, updatedAt: at, blob: { $bytes: '%%' } }] } }), 'DG1822'],
    ['duplicate id', () => ({ ...valid(), tables: { folders: [{ id: 'x', createdAt: at, updatedAt: at, name: 'a' }, { id: 'x', createdAt: at, updatedAt: at, name: 'b' }] } }), 'DG1822'],
    ['nesting too deep', () => {
      let deep: unknown = 1;
      for (let i = 0; i < 100; i++) deep = [deep];
      return { ...valid(), tables: { notes: [{ id: 'x', createdAt: at, updatedAt: at, meta: deep }] } };
    }, 'DG1822'],
    ['another application', () => ({ ...valid(), app: 'other-app' }), 'DG1824', 'state_import_application_mismatch'],
    ['another schema its records cannot follow', () => {
      const other = structuredClone(manifest);
      other.database!.tables.folders!.fields.name = { type: 'number' };
      return sampleStateExport(other, 2);
    }, 'DG1824', 'state_import_schema_mismatch'],
    ['unknown field', () => ({ ...valid(), tables: { folders: [{ id: 'x', createdAt: at, updatedAt: at, name: 'a', colour: 'red' }] } }), 'DG1824', 'state_import_record_invalid'],
    ['generated field given', () => ({ ...valid(), tables: { folders: [{ id: 'f', createdAt: at, updatedAt: at, name: 'a' }], notes: [{ id: 'x', createdAt: at, updatedAt: at, folder: 'f', title: 't', titleLength: 1 }] } }), 'DG1824', 'state_import_record_invalid'],
    ['wrong type', () => ({ ...valid(), tables: { folders: [{ id: 'x', createdAt: at, updatedAt: at, name: 5 }] } }), 'DG1824', 'state_import_record_invalid'],
    ['enum value not declared', () => ({ ...valid(), tables: { folders: [{ id: 'f', createdAt: at, updatedAt: at, name: 'a' }], notes: [{ id: 'x', createdAt: at, updatedAt: at, folder: 'f', title: 't', kind: 'other' }] } }), 'DG1824', 'state_import_record_invalid'],
    ['too long', () => ({ ...valid(), tables: { folders: [{ id: 'x', createdAt: at, updatedAt: at, name: 'a'.repeat(41) }] } }), 'DG1824', 'state_import_record_invalid'],
    ['required field missing', () => ({ ...valid(), tables: { folders: [{ id: 'x', createdAt: at, updatedAt: at }] } }), 'DG1824', 'state_import_record_invalid'],
    ['required field null', () => ({ ...valid(), tables: { folders: [{ id: 'x', createdAt: at, updatedAt: at, name: null }] } }), 'DG1824', 'state_import_record_invalid'],
    ['unique violation (SQLite)', () => ({ ...valid(), tables: { folders: [{ id: 'x', createdAt: at, updatedAt: at, name: 'a' }, { id: 'y', createdAt: at, updatedAt: at, name: 'a' }] } }), 'DG1824', 'state_import_record_invalid'],
    ['check violation (SQLite)', () => ({ ...valid(), tables: { folders: [{ id: 'f', createdAt: at, updatedAt: at, name: 'a' }], notes: [{ id: 'x', createdAt: at, updatedAt: at, folder: 'f', title: 't', score: -1 }] } }), 'DG1824', 'state_import_record_invalid'],
    ['dangling reference (checked before COMMIT)', () => ({ ...valid(), tables: { notes: [{ id: 'x', createdAt: at, updatedAt: at, folder: 'missing', title: 't' }] } }), 'DG1824', 'state_import_record_invalid'],
    ['json field holding a Date', () => ({ ...valid(), tables: { folders: [{ id: 'f', createdAt: at, updatedAt: at, name: 'a' }], notes: [{ id: 'x', createdAt: at, updatedAt: at, folder: 'f', title: 't', meta: at }] } }), 'DG1824', 'state_import_record_invalid'],
  ];

  for (const [name, make, code, detail] of cases) {
    it(`${name}: ${code}${detail ? ` ${detail}` : ''}`, () => {
      const driver = factory();
      expect(importState(driver, manifest, valid()).ok).toBe(true);
      const before = fingerprint(driver);
      const result = importState(driver, manifest, make());
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.diagnostic.code).toBe(code);
      expect(result.diagnostic.severity).toBe('error');
      expect(result.diagnostic.message.length).toBeGreaterThan(10);
      if (detail) expect(result.diagnostic.detail?.code).toBe(detail);
      else expect(result.diagnostic.detail?.code).toBeUndefined();
      expect(fingerprint(driver)).toBe(before);
      expect(driver.all('PRAGMA foreign_keys')[0]).toEqual({ foreign_keys: 1 });
    });
  }

  it('names the table, id and field of an invalid record', () => {
    const result = importState(factory(), manifest, { ...valid(), tables: { folders: [{ id: 'x', createdAt: at, updatedAt: at, name: 5 }] } });
    expect(result).toMatchObject({ ok: false, diagnostic: { detail: { code: 'state_import_record_invalid', table: 'folders', id: 'x', field: 'name' } } });
    if (!result.ok) expect(result.diagnostic.message).toBe('Record folders/x cannot be imported: Field "name" of folders must be a string.');
  });

  it('refuses a database created for another schema, on import and on export', () => {
    const other = { ...manifest, database: { ...manifest.database!, version: 3 } };
    const driver = factory();
    // Made for another declaration, and not (yet) brought to this one by a runtime.
    new AppRuntime({ manifest: other, definition: {}, driver });
    const before = fingerprint(driver);
    const result = importState(driver, manifest, valid());
    expect(result).toMatchObject({ ok: false, diagnostic: { code: 'DG1824', detail: { code: 'state_import_schema_mismatch' } } });
    expect(fingerprint(driver)).toBe(before);
    expect(exportState(driver, manifest)).toMatchObject({ ok: false, diagnostic: { code: 'DG1824', detail: { code: 'state_import_schema_mismatch' } } });
  });

  it('names the table, field and reason when an export cannot follow the schema in force', () => {
    const other = structuredClone(manifest);
    other.database!.tables.folders!.fields.name = { type: 'number' };
    const result = importState(factory(), manifest, sampleStateExport(other, 2));
    expect(result).toMatchObject({ ok: false, diagnostic: { code: 'DG1824', detail: { code: 'state_import_schema_mismatch', problems: [{ table: 'folders', field: 'name' }] } } });
    if (!result.ok) expect(result.diagnostic.message).toMatch(/folders\.name: is a number field holding values in 2 rows and would become a string field/);
  });

  it('refuses text that is not JSON (DG1822) and text over the size limit before parsing it (DG1824)', () => {
    const driver = factory();
    expect(importStateText(driver, manifest, '{"protocol": ')).toMatchObject({ ok: false, diagnostic: { code: 'DG1822' } });
    const huge = ' '.repeat(MAX_STATE_EXPORT_BYTES + 1);
    expect(importStateText(driver, manifest, huge)).toMatchObject({ ok: false, diagnostic: { code: 'DG1824', detail: { code: 'state_export_too_large' } } });
    expect(importStateText(driver, manifest, JSON.stringify(valid()))).toMatchObject({ ok: true });
  });

  it('parses without a manifest and reports the row count', () => {
    const parsed = parseStateExport(valid());
    expect(parsed.ok && parsed.state.rowCount).toBe(8);
    expect(parsed.ok && parsed.state.rows.notes![0]!.createdAt).toBeInstanceOf(Date);
  });
});

// tooling.md, Versioning 4: "A state import succeeds only when the export's schema identity matches the schema in force."
describe('an export taken under another schema identity is refused, a compatible change included', () => {
  const todo = templateManifest('todo');
  const definition = defineServer({
    queries: { 'todos.list': query({ input: {}, handler: (ctx: any) => ctx.db.table('todos').all() }) },
    mutations: { 'todos.add': mutation({ input: { title: 'string' }, handler: (ctx: any, input: { title: string }) => ctx.db.table('todos').insert({ title: input.title }) }) },
    authPolicies: { todos: ownedTable() },
  } as never);
  const alice = personaAuth('todo', 'alice');
  async function exportedBefore(): Promise<StateExportDocument> {
    const driver = factory();
    const runtime = new AppRuntime({ manifest: todo, definition, driver });
    for (const title of ['milk', 'eggs']) await runtime.call(alice, 'mutation', 'todos.add', { title });
    await runtime.call(alice, 'mutation', 'todos.add', { title: 'done' });
    driver.exec(`UPDATE todos SET done = 1 WHERE title = 'done'`);
    return JSON.parse(JSON.stringify(exportOk(driver, todo)));
  }
  function withTodos(edit: (fields: Record<string, FieldDeclaration>) => void): Manifest {
    const manifest = structuredClone(todo);
    edit(manifest.database!.tables.todos!.fields);
    return manifest;
  }

  const mismatch = (problems?: unknown) => ({ ok: false, diagnostic: { code: 'DG1824', detail: { code: 'state_import_schema_mismatch', ...(problems ? { problems } : {}) } } });

  it('a new optional field (with or without a default) since the export: refused, nothing written; exported again under it, it imports', async () => {
    const document = await exportedBefore();
    for (const field of [{ type: 'number', optional: true, default: 0 }, { type: 'string', optional: true }] as FieldDeclaration[]) {
      const after = withTodos((f) => void (f.priority = field));
      const driver = factory();
      const runtime = new AppRuntime({ manifest: after, definition, driver });
      await runtime.call(alice, 'mutation', 'todos.add', { title: 'kept' });
      const before = fingerprint(driver);
      const result = importState(driver, after, document);
      expect(result).toMatchObject(mismatch());
      if (!result.ok) {
        expect(result.diagnostic.detail).toEqual({ code: 'state_import_schema_mismatch', expected: stateSchemaIdentity(after), actual: document.schema });
        expect(result.diagnostic.message).toMatch(/another database declaration/);
      }
      expect(fingerprint(driver)).toBe(before);
      // The rows follow the change the runtime's way (in the database, not in an import); their export is of the schema in force.
      const old = factory();
      new AppRuntime({ manifest: todo, definition, driver: old });
      expect(importState(old, todo, document)).toEqual({ ok: true, counts: { todos: 3 } });
      new AppRuntime({ manifest: after, definition, driver: old });
      const again = exportOk(old, after);
      expect(again.schema).toBe(stateSchemaIdentity(after));
      expect(importState(factory(), after, JSON.parse(JSON.stringify(again)))).toEqual({ ok: true, counts: { todos: 3 } });
    }
  });

  it('a change its records could not follow either is refused naming the field; nothing is written', async () => {
    const document = await exportedBefore();
    const after = withTodos((f) => void (f.title = { type: 'number' }));
    const driver = factory();
    new AppRuntime({ manifest: after, definition, driver });
    const before = fingerprint(driver);
    const result = importState(driver, after, document);
    expect(result).toMatchObject(mismatch([{ table: 'todos', field: 'title' }]));
    expect(fingerprint(driver)).toBe(before);
    const required = withTodos((f) => void (f.priority = { type: 'number' }));
    expect(importState(factory(), required, document)).toMatchObject(mismatch([{ table: 'todos', field: 'priority', reason: expect.stringMatching(/new and required without a default/) }]));
  });

  it('the policy field of the schema in force is named among what the records could not follow', async () => {
    const document = await exportedBefore();
    const widened = withTodos((f) => void (f.ownerId = { type: 'string', collate: 'nocase' }));
    expect(importState(factory(), widened, document)).toMatchObject(mismatch());
    expect(importState(factory(), widened, document, { policies: new Map([['todos', 'ownedTable']]) })).toMatchObject(
      mismatch([{ table: 'todos', field: 'ownerId', reason: expect.stringMatching(/ownedTable\(\) policy/) }]),
    );
  });
});
