/**
 * Schema changes over sql.js: every compatible change keeps every row (new fields read back as their
 * default or absent); every incompatible one is refused naming the table, the field and the reason,
 * and leaves the database exactly as it was; a database that records only its schema hash migrates.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../../adapters/node/sqljs';
import type { Manifest, TableDeclaration } from '../manifest';
import { defineServer, mutation, ownedTable, query } from '../../modules/server';
import { RICH, fingerprint } from '../state/__fixtures__/rich';
import { readStoredSchema, META_TABLE } from './database-schema';
import { personaAuth } from './personas';
import { AppRuntime, schemaIdentity } from './runtime';
import type { SqlDriver, SqlDriverFactory } from './sql-driver';
import { createSchema, type DatabaseDeclaration } from './tables/schema';
import { isSchemaChangeRefused, SCHEMA_CHANGE_REFUSED, type SchemaChangeRefused } from './tables/schema-change';
import { declarationFromSql, readStoredSql } from './tables/schema-read';

const TEMPLATES = join(import.meta.dirname, '../../../templates');
let factory: SqlDriverFactory;
beforeAll(async () => {
  factory = await nodeSqlDriverFactory();
});

const BASE: DatabaseDeclaration = {
  tables: {
    lists: { fields: { name: { type: 'string', maxLength: 40 } } },
    todos: {
      fields: {
        ownerId: { type: 'string' },
        title: { type: 'string', maxLength: 200 },
        done: { type: 'boolean', default: false },
        note: { type: 'string', optional: true },
        state: { type: 'string', enum: ['open', 'done'], optional: true },
        list: { type: 'ref', table: 'lists', optional: true, onDelete: 'cascade' },
        code: { type: 'string', optional: true, unique: true },
        size: { type: 'number', generated: { expression: 'length(title)' } },
      },
      indexes: { byOwner: ['ownerId', 'done'] },
      unique: [['ownerId', 'title']],
      checks: { titled: 'length(title) > 0' },
    },
    empty: { fields: { label: { type: 'string' } } },
  },
};

function manifestOf(database: DatabaseDeclaration): Manifest {
  return { format: 'platform.application-source.v0', name: 'schema-app', entrypoints: { client: 'c.tsx', server: 's.ts' }, capabilities: ['database'], database };
}

function definition(policies: Record<string, unknown> = {}) {
  return defineServer({
    queries: { 'rows.all': query({ input: { table: 'string' }, handler: async (ctx: any, input: { table: string }) => ctx.db.table(input.table).all() }) },
    mutations: { 'rows.add': mutation({ input: { table: 'string', row: 'json' }, handler: async (ctx: any, input: { table: string; row: any }) => ctx.db.table(input.table).insert(input.row) }) },
    authPolicies: policies,
  } as never);
}

const alice = personaAuth('schema-app', 'alice');
const open = (driver: SqlDriver, database: DatabaseDeclaration, policies?: Record<string, unknown>) => new AppRuntime({ manifest: manifestOf(database), definition: definition(policies), driver });

async function add(runtime: AppRuntime, table: string, row: Record<string, unknown>): Promise<string> {
  const outcome = await runtime.call(alice, 'mutation', 'rows.add', { table, row });
  if (outcome.error) throw new Error(outcome.error.message);
  return (outcome.result as { id: string }).id;
}

async function rows(runtime: AppRuntime, table: string): Promise<Array<Record<string, unknown>>> {
  const outcome = await runtime.call(alice, 'query', 'rows.all', { table });
  if (outcome.error) throw new Error(outcome.error.message);
  return outcome.result as Array<Record<string, unknown>>;
}

/** A database under BASE holding one list and two todos (one with a state and a list, one bare). */
async function seeded(): Promise<{ driver: SqlDriver; runtime: AppRuntime }> {
  const driver = factory();
  const runtime = open(driver, BASE);
  const list = await add(runtime, 'lists', { name: 'home' });
  await add(runtime, 'todos', { ownerId: 'u1', title: 'milk', state: 'open', list });
  await add(runtime, 'todos', { ownerId: 'u2', title: 'bread', done: true });
  return { driver, runtime };
}

function changed(edit: (tables: Record<string, TableDeclaration>) => void): DatabaseDeclaration {
  const database = structuredClone(BASE);
  edit(database.tables);
  return database;
}

function refusal(work: () => unknown): SchemaChangeRefused {
  try {
    work();
  } catch (error) {
    if (isSchemaChangeRefused(error)) return error;
    throw error;
  }
  throw new Error('expected the change to be refused');
}

const pick = (row: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.filter((k) => k in row).map((k) => [k, row[k]]));

describe('compatible changes keep every row', () => {
  const cases: Array<[string, (t: Record<string, TableDeclaration>) => void, ((todos: Array<Record<string, unknown>>) => void)?]> = [
    ['a new optional field reads back absent', (t) => void (t.todos!.fields.priority = { type: 'number', optional: true }), (todos) => expect(todos.every((r) => !('priority' in r))).toBe(true)],
    ['a new optional field with a default reads back as the default', (t) => void (t.todos!.fields.priority = { type: 'number', optional: true, default: 0 }), (todos) => expect(todos.map((r) => r.priority)).toEqual([0, 0])],
    ['a new required field with a default reads back as the default', (t) => void (t.todos!.fields.kind = { type: 'string', enum: ['a', 'b'], default: 'a' }), (todos) => expect(todos.map((r) => r.kind)).toEqual(['a', 'a'])],
    ['a new generated field is computed', (t) => void (t.todos!.fields.twice = { type: 'number', generated: { expression: 'length(title) * 2', stored: true } }), (todos) => expect(todos.map((r) => r.twice)).toEqual([8, 10])],
    ['a new table', (t) => void (t.tags = { fields: { label: { type: 'string' } }, indexes: { byLabel: { columns: ['label'], unique: true } } })],
    ['a new index and a dropped one', (t) => void (t.todos!.indexes = { byTitle: { columns: [{ column: 'title', collate: 'nocase', desc: true }] } })],
    ['an index made unique on an empty table', (t) => void (t.empty!.indexes = { byLabel: { columns: ['label'], unique: true } })],
    ['maxLength raised', (t) => void (t.todos!.fields.title!.maxLength = 300)],
    ['maxLength removed', (t) => void delete t.todos!.fields.title!.maxLength],
    ['an enum value added', (t) => void t.todos!.fields.state!.enum!.push('later')],
    ['an enum removed', (t) => void delete t.todos!.fields.state!.enum],
    ['a required field made optional', (t) => void (t.todos!.fields.title!.optional = true)],
    ['unique dropped', (t) => void delete t.todos!.fields.code!.unique],
    ['a ref made a plain string', (t) => void (t.todos!.fields.list = { type: 'string', optional: true }), (todos) => expect(typeof todos[0]!.list).toBe('string')],
    ['a default added, changed, removed', (t) => {
      t.todos!.fields.title!.default = 'untitled';
      t.todos!.fields.done!.default = true;
      delete t.lists!.fields.name!.default;
    }, (todos) => expect(todos.map((r) => r.done)).toEqual([false, true])],
    ['onDelete changed', (t) => void (t.todos!.fields.list!.onDelete = 'setNull')],
    ['collation of a plain field changed', (t) => void (t.todos!.fields.note!.collate = 'nocase')],
    ['a generated expression changed', (t) => void (t.todos!.fields.size!.generated = { expression: 'length(title) + 1' }), (todos) => expect(todos.map((r) => r.size)).toEqual([5, 6])],
    ['idSource and version changed', (t) => void (t.lists!.idSource = 'application')],
    ['a field holding no value removed', (t) => void delete t.todos!.fields.note],
    ['a field holding no value retyped', (t) => void (t.todos!.fields.note = { type: 'number', optional: true })],
    ['an empty table removed', (t) => void delete t.empty],
    ['an empty table changed in any way', (t) => void (t.empty = { fields: { label: { type: 'number' }, other: { type: 'string' } }, checks: { positive: 'label > 0' } })],
    ['a check and a unique group removed', (t) => {
      delete t.todos!.checks;
      delete t.todos!.unique;
    }],
  ];

  for (const [name, edit, check] of cases) {
    it(name, async () => {
      const { driver, runtime } = await seeded();
      const before = await rows(runtime, 'todos');
      const lists = await rows(runtime, 'lists');
      const next = changed(edit);
      if (name.startsWith('idSource')) next.version = 2;
      const reopened = open(driver, next);
      expect(reopened.schemaChange).toBe('changed');
      const after = await rows(reopened, 'todos');
      const kept = ['id', 'createdAt', 'updatedAt', 'ownerId', 'title', 'state', 'code'];
      expect(after.map((r) => pick(r, kept))).toEqual(before.map((r) => pick(r, kept)));
      expect(await rows(reopened, 'lists')).toEqual(lists);
      check?.(after);
      // The declaration is recorded: opening again changes nothing, and writes still work.
      expect(readStoredSchema(driver)).toEqual({ identity: schemaIdentity(manifestOf(next)), database: next });
      expect(open(driver, next).schemaChange).toBe('unchanged');
      await add(reopened, 'todos', { ownerId: 'u3', title: 'eggs' });
      expect(driver.all('PRAGMA foreign_key_check')).toEqual([]);
      expect(driver.all('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      expect(driver.all(`SELECT name FROM sqlite_master WHERE name LIKE '__platform_old_%'`)).toEqual([]);
    });
  }

  it('rebuilds a parent table without running its children\'s ON DELETE actions', async () => {
    const { driver } = await seeded();
    const next = changed((t) => void (t.lists!.fields.colour = { type: 'string', optional: true, default: 'red' }));
    const runtime = open(driver, next);
    expect((await rows(runtime, 'todos')).map((r) => r.title)).toEqual(['milk', 'bread']);
    expect((await rows(runtime, 'lists')).map((r) => [r.name, r.colour])).toEqual([['home', 'red']]);
    // The reference still works: deleting the list cascades to its todo.
    driver.exec('DELETE FROM lists');
    expect((await rows(runtime, 'todos')).map((r) => r.title)).toEqual(['bread']);
  });

  it('a field holding only its default is removed (adding one and taking it out again)', async () => {
    const { driver } = await seeded();
    const withPriority = changed((t) => void (t.todos!.fields.priority = { type: 'number', optional: true, default: 0 }));
    open(driver, withPriority);
    expect(open(driver, BASE).schemaChange).toBe('changed');
    const runtime = open(driver, withPriority);
    await add(runtime, 'todos', { ownerId: 'u3', title: 'eggs', priority: 3 });
    expect(refusal(() => open(driver, BASE)).problems).toEqual([{ table: 'todos', field: 'priority', reason: 'holds data in 1 row; removing the field would lose it' }]);
  });

  it('a table with no rows takes a change that would be refused on one with rows', async () => {
    const driver = factory();
    open(driver, BASE);
    const next = changed((t) => void (t.todos!.fields.title = { type: 'number' }));
    expect(open(driver, next).schemaChange).toBe('changed');
  });
});

describe('incompatible changes are refused, naming the table, the field and the reason; nothing changes', () => {
  const cases: Array<[string, (t: Record<string, TableDeclaration>) => void, Record<string, string>, RegExp, Record<string, unknown>?]> = [
    ['a field holding data removed', (t) => void delete t.todos!.fields.title, { table: 'todos', field: 'title' }, /holds data in 2 rows; removing the field would lose it/],
    ['a field holding data retyped', (t) => void (t.todos!.fields.title = { type: 'number' }), { table: 'todos', field: 'title' }, /is a string field holding values in 2 rows and would become a number field; a retyped field cannot keep its data/],
    ['a ref pointed at another table', (t) => void (t.todos!.fields.list = { type: 'ref', table: 'empty', optional: true }), { table: 'todos', field: 'list' }, /is a ref to lists holding values in 1 row and would become a ref to empty/],
    ['a field holding data made generated', (t) => void (t.todos!.fields.title = { type: 'string', generated: { expression: "'x'" } }), { table: 'todos', field: 'title' }, /stored values would be lost/],
    ['a new required field without a default', (t) => void (t.todos!.fields.priority = { type: 'number' }), { table: 'todos', field: 'priority' }, /is new and required without a default; the table's 2 rows have no value for it/],
    ['a new unique required field', (t) => void (t.todos!.fields.slug = { type: 'string', unique: true, default: 'x' }), { table: 'todos', field: 'slug' }, /would all take the same default/],
    ['maxLength lowered', (t) => void (t.todos!.fields.title!.maxLength = 100), { table: 'todos', field: 'title' }, /maxLength narrows from 200 to 100/],
    ['maxLength added', (t) => void (t.todos!.fields.note!.maxLength = 10), { table: 'todos', field: 'note' }, /gains maxLength 10/],
    ['an enum value removed', (t) => void (t.todos!.fields.state!.enum = ['open']), { table: 'todos', field: 'state' }, /loses the enum value "done"/],
    ['an enum added', (t) => void (t.todos!.fields.title!.enum = ['milk', 'bread']), { table: 'todos', field: 'title' }, /gains an enum/],
    ['an optional field made required', (t) => void (t.todos!.fields.note!.optional = false), { table: 'todos', field: 'note' }, /becomes required/],
    ['a field made unique', (t) => void (t.todos!.fields.title!.unique = true), { table: 'todos', field: 'title' }, /becomes unique/],
    ['the collation of a unique field changed', (t) => void (t.todos!.fields.code!.collate = 'nocase'), { table: 'todos', field: 'code' }, /changes collation from binary to nocase/],
    ['a unique group added', (t) => void t.todos!.unique!.push(['title', 'note']), { table: 'todos', field: 'title' }, /gains the unique group \(title, note\)/],
    ['a check added', (t) => void (t.todos!.checks!.short = 'length(title) < 30'), { table: 'todos', check: 'short' }, /is a new check/],
    ['a check changed', (t) => void (t.todos!.checks!.titled = 'length(title) > 1'), { table: 'todos', check: 'titled' }, /changes its expression/],
    ['a unique index added', (t) => void (t.todos!.indexes!.byTitle = { columns: ['title'], unique: true }), { table: 'todos', index: 'byTitle' }, /is a new unique index/],
    ['a table holding rows removed', (t) => {
      delete t.lists;
      t.todos!.fields.list = { type: 'string', optional: true };
    }, { table: 'lists' }, /holds 1 row; removing the table would lose them/],
    ['the field an ownedTable policy reads changed', (t) => void (t.todos!.fields.ownerId!.optional = true), { table: 'todos', field: 'ownerId' }, /is the field the ownedTable\(\) policy reads; it cannot change/, { todos: ownedTable() }],
  ];

  for (const [name, edit, where, reason, policies] of cases) {
    it(name, async () => {
      const { driver, runtime } = await seeded();
      const before = fingerprint(driver);
      const error = refusal(() => open(driver, changed(edit), policies));
      expect(error.code).toBe(SCHEMA_CHANGE_REFUSED);
      expect(error.problems[0]).toMatchObject(where);
      expect(error.problems[0]!.reason).toMatch(reason);
      const subject = where.field ? `${where.table}.${where.field}` : where.table!;
      expect(error.message).toContain(`${subject}`);
      expect(error.message).toMatch(reason);
      expect(fingerprint(driver)).toBe(before);
      // The previous version serves on, on the same data.
      expect((await rows(runtime, 'todos')).map((r) => r.title)).toEqual(['milk', 'bread']);
    });
  }

  it('lists every problem of one change', () => {
    return seeded().then(({ driver }) => {
      const error = refusal(() => open(driver, changed((t) => {
        delete t.todos!.fields.title;
        t.todos!.fields.priority = { type: 'number' };
      })));
      expect(error.problems.map((p) => p.field)).toEqual(['title', 'priority']);
      expect(error.message).toMatch(/todos\.title: .*; todos\.priority: /);
    });
  });

  it('refuses, naming the table and SQLite\'s reason, rows that do not fit what only SQLite checks', async () => {
    const { driver } = await seeded();
    const before = fingerprint(driver);
    const error = refusal(() => open(driver, changed((t) => void (t.todos!.fields.bad = { type: 'number', generated: { expression: 'NULL', stored: true } }))));
    expect(error.problems).toEqual([{ table: 'todos', reason: expect.stringMatching(/the stored rows do not fit the new declaration: NOT NULL constraint failed: todos\.bad/) }]);
    expect(fingerprint(driver)).toBe(before);
  });
});

describe('databases that record only their schema hash', () => {
  /** What the runtime wrote before it kept the declaration: the hash, then the tables. */
  function hashOnly(database: DatabaseDeclaration): SqlDriver {
    const driver = factory();
    driver.exec(`CREATE TABLE ${META_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    driver.exec(`INSERT INTO ${META_TABLE} (key, value) VALUES ('schema', ?)`, [schemaIdentity(manifestOf(database))]);
    createSchema(driver, database);
    return driver;
  }

  it('reads the declaration back from the SQL of every field type, option and index form (and of every template)', () => {
    const templates = readdirSync(TEMPLATES).filter((name) => existsSync(join(TEMPLATES, name, 'app.manifest.json')));
    const declared = templates.map((name) => (JSON.parse(readFileSync(join(TEMPLATES, name, 'app.manifest.json'), 'utf8')) as Manifest).database).filter((d) => d !== undefined);
    expect(declared.length).toBeGreaterThan(1);
    for (const database of [RICH.database!, BASE, ...declared]) {
      const driver = hashOnly(database);
      const read = declarationFromSql(readStoredSql(driver), database);
      expect(read.problems).toEqual([]);
      expect(read.database).toEqual(database);
    }
  });

  it('opened under the same declaration, records it and changes nothing else', () => {
    const driver = hashOnly(BASE);
    const tables = readStoredSql(driver);
    expect(open(driver, BASE).schemaChange).toBe('unchanged');
    expect(readStoredSchema(driver)).toEqual({ identity: schemaIdentity(manifestOf(BASE)), database: BASE });
    expect(readStoredSql(driver)).toEqual(tables);
  });

  it('migrates under a compatible change and records the declaration from then on', async () => {
    const driver = hashOnly(BASE);
    driver.exec(`INSERT INTO todos (id, createdAt, updatedAt, ownerId, title) VALUES ('t1', 1, 1, 'u1', 'milk')`);
    const next = changed((t) => void (t.todos!.fields.priority = { type: 'number', optional: true, default: 0 }));
    const runtime = open(driver, next);
    expect(runtime.schemaChange).toBe('changed');
    expect((await rows(runtime, 'todos')).map((r) => pick(r, ['id', 'title', 'priority']))).toEqual([{ id: 't1', title: 'milk', priority: 0 }]);
    expect(readStoredSchema(driver)?.database).toEqual(next);
  });

  it('refuses an incompatible change naming the field, and leaves the database untouched', () => {
    const driver = hashOnly(BASE);
    driver.exec(`INSERT INTO todos (id, createdAt, updatedAt, ownerId, title) VALUES ('t1', 1, 1, 'u1', 'milk')`);
    const before = fingerprint(driver);
    const error = refusal(() => open(driver, changed((t) => void (t.todos!.fields.title = { type: 'number' }))));
    expect(error.problems).toEqual([{ table: 'todos', field: 'title', reason: expect.stringMatching(/is a string field holding values in 1 row/) }]);
    expect(fingerprint(driver)).toBe(before);
  });

  it('refuses a table whose SQL is not in the runtime\'s form rather than guess', () => {
    const driver = hashOnly(BASE);
    driver.exec('CREATE TABLE stray (id TEXT PRIMARY KEY, x)');
    const before = fingerprint(driver);
    const error = refusal(() => open(driver, changed((t) => void (t.todos!.fields.priority = { type: 'number', optional: true }))));
    expect(error.problems).toEqual([{ table: 'stray', reason: expect.stringMatching(/not in the form this runtime writes/) }]);
    expect(fingerprint(driver)).toBe(before);
  });
});
