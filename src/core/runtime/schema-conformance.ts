/**
 * Schema changes in the runtime's conformance suite (conformance.ts runs these with the rest), so that
 * they hold over every SqlDriver: sql.js in Node and the browser, a Durable Object's SQLite in workerd,
 * whose transactions cannot turn foreign keys off. Framework-neutral: each case throws on failure.
 */
import type { Manifest } from '../manifest';
import { defineServer, mutation, query } from '../../modules/server';
import { testClock } from './clock';
import { META_TABLE, readStoredSchema } from './database-schema';
import { personaAuth } from './personas';
import { AppRuntime, schemaIdentity } from './runtime';
import type { SqlDriver, SqlDriverFactory } from './sql-driver';
import { assert, assertEqual } from './tables/conformance';
import { createSchema, type DatabaseDeclaration } from './tables/schema';
import { isSchemaChangeRefused } from './tables/schema-change';

const DATABASE: DatabaseDeclaration = {
  tables: {
    lists: { fields: { name: { type: 'string' } } },
    todos: {
      fields: { title: { type: 'string', maxLength: 200 }, done: { type: 'boolean', default: false }, list: { type: 'ref', table: 'lists', onDelete: 'cascade' } },
      indexes: { byList: ['list'] },
    },
  },
};

const manifestOf = (database: DatabaseDeclaration): Manifest => ({
  format: 'platform.application-source.v0',
  name: 'schema-conformance',
  entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' },
  capabilities: ['database'],
  database,
});

const definition = defineServer({
  queries: { 'rows.all': query({ input: { table: 'string' }, handler: async (ctx: any, input: { table: string }) => ctx.db.table(input.table).all() }) },
  mutations: { 'rows.add': mutation({ input: { table: 'string', row: 'json' }, handler: async (ctx: any, input: { table: string; row: any }) => ({ id: (await ctx.db.table(input.table).insert(input.row)).id }) }) },
} as never);

const alice = personaAuth('schema-conformance', 'alice');
const open = (driver: SqlDriver, database: DatabaseDeclaration) => new AppRuntime({ manifest: manifestOf(database), definition, driver, clock: testClock() });

async function add(runtime: AppRuntime, table: string, row: Record<string, unknown>): Promise<string> {
  const outcome = await runtime.call(alice, 'mutation', 'rows.add', { table, row });
  assert(!outcome.error, `insert into ${table}: ${outcome.error?.message}`);
  return (outcome.result as { id: string }).id;
}

async function rows(runtime: AppRuntime, table: string): Promise<Array<Record<string, unknown>>> {
  const outcome = await runtime.call(alice, 'query', 'rows.all', { table });
  assert(!outcome.error, `read ${table}: ${outcome.error?.message}`);
  return outcome.result as Array<Record<string, unknown>>;
}

/** One list holding two todos. */
async function seeded(driver: SqlDriver): Promise<AppRuntime> {
  const runtime = open(driver, DATABASE);
  const list = await add(runtime, 'lists', { name: 'home' });
  for (const title of ['milk', 'bread']) await add(runtime, 'todos', { title, list });
  return runtime;
}

/** The app's tables, indexes, rows and meta as text: equal text means nothing was changed. */
function fingerprint(driver: SqlDriver): string {
  const schema = driver.all(`SELECT type, name, sql FROM sqlite_master WHERE name IN ('lists', 'todos', '${META_TABLE}') OR tbl_name IN ('lists', 'todos') ORDER BY name`);
  const data = ['lists', 'todos', META_TABLE].map((table) => driver.all(`SELECT * FROM "${table}" ORDER BY rowid`));
  return JSON.stringify([schema, data]);
}

function changed(edit: (database: DatabaseDeclaration) => void): DatabaseDeclaration {
  const database = structuredClone(DATABASE);
  edit(database);
  return database;
}

export const schemaConformance: Array<{ name: string; run(make: SqlDriverFactory): Promise<void> }> = [
  {
    name: 'schema: a compatible change keeps every row (a new field with a default, a new table and index, a rebuilt parent whose children cascade)',
    async run(make) {
      const driver = make();
      const before = await rows(await seeded(driver), 'todos');
      const next = changed((d) => {
        d.tables.todos!.fields.priority = { type: 'number', optional: true, default: 0 };
        d.tables.todos!.fields.note = { type: 'string', optional: true };
        d.tables.todos!.indexes = { byTitle: ['title'] };
        d.tables.lists!.fields.colour = { type: 'string', default: 'red' };
        d.tables.tags = { fields: { label: { type: 'string' } } };
      });
      const runtime = open(driver, next);
      assertEqual(runtime.schemaChange, 'changed', 'the schema changed');
      const after = await rows(runtime, 'todos');
      assertEqual(after.map((r) => [r.id, r.title, r.list, r.priority, 'note' in r]), before.map((r) => [r.id, r.title, r.list, 0, false]), 'every todo kept, the new fields their default or absent');
      assertEqual((await rows(runtime, 'lists')).map((r) => [r.name, r.colour]), [['home', 'red']], 'the rebuilt parent kept its row');
      assertEqual(readStoredSchema(driver)?.database, next, 'the declaration is recorded');
      assertEqual(driver.all(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'todos' AND sql IS NOT NULL ORDER BY name`).map((r) => r.name), ['__platform_order__todos', 'todos__byTitle'], 'indexes as declared');
      // References still hold: deleting the list cascades to its todos.
      await add(runtime, 'tags', { label: 'x' });
      driver.exec('DELETE FROM lists');
      assertEqual(await rows(runtime, 'todos'), [], 'the cascade still runs');
    },
  },
  {
    name: 'schema: an incompatible change is refused naming the table, field and reason; the database is untouched and the old version serves on',
    async run(make) {
      const driver = make();
      const runtime = await seeded(driver);
      const before = fingerprint(driver);
      let refused: unknown;
      try {
        open(driver, changed((d) => void (d.tables.todos!.fields.title = { type: 'number' })));
      } catch (error) {
        refused = error;
      }
      assert(isSchemaChangeRefused(refused), `refused with schema_change_refused, got ${String(refused)}`);
      assertEqual(refused.problems.map((p) => [p.table, p.field]), [['todos', 'title']], 'the problem names the table and field');
      assert(/todos\.title: is a string field holding values in 2 rows and would become a number field/.test(refused.message), `the message says why: ${refused.message}`);
      assertEqual(fingerprint(driver), before, 'nothing changed');
      assertEqual((await rows(runtime, 'todos')).map((r) => r.title), ['milk', 'bread'], 'the old version serves on');
    },
  },
  {
    name: 'schema: a database that records only its schema hash migrates, and records its declaration from then on',
    async run(make) {
      const driver = make();
      driver.transactionSync(() => {
        driver.exec(`CREATE TABLE ${META_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
        driver.exec(`INSERT INTO ${META_TABLE} (key, value) VALUES ('schema', ?)`, [schemaIdentity(manifestOf(DATABASE))]);
        createSchema(driver, DATABASE);
        driver.exec(`INSERT INTO lists (id, createdAt, updatedAt, name) VALUES ('l1', 1, 1, 'home')`);
        driver.exec(`INSERT INTO todos (id, createdAt, updatedAt, title, list) VALUES ('t1', 1, 1, 'milk', 'l1')`);
      });
      const next = changed((d) => void (d.tables.todos!.fields.priority = { type: 'number', optional: true, default: 0 }));
      const runtime = open(driver, next);
      assertEqual((await rows(runtime, 'todos')).map((r) => [r.id, r.title, r.priority]), [['t1', 'milk', 0]], 'the row kept, the new field its default');
      assertEqual(readStoredSchema(driver)?.database, next, 'the declaration is recorded');
    },
  },
];
