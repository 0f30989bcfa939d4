/** Runtime figures: the table API against raw sql.js on the same table, and each template's test run. */
import { nodeSqlDriverFactory } from '../src/adapters/node/sqljs';
import type { Manifest } from '../src/core/manifest';
import { systemClock, CursorSigner, DEFAULT_LIMITS, Meter, createSchema, Database, personaAuth, AppRuntime } from '../src/core/runtime';
import { defineServer, mutation, ownedTable } from '../src/modules/server';
import { median, percentile, type Row } from './stats';

const ROWS = 5000;
const LOOKUPS = 5000;
const OWNERS = 50;

const database: NonNullable<Manifest['database']> = {
  tables: {
    todos: {
      fields: { ownerId: { type: 'string' }, title: { type: 'string', maxLength: 200 }, done: { type: 'boolean', default: false } },
      indexes: { byOwner: ['ownerId'] },
    },
  },
};

export async function tableRows(): Promise<Row[]> {
  const make = await nodeSqlDriverFactory();
  const limits = { ...DEFAULT_LIMITS, queryRows: 10_000, mutationWrites: 1_000_000 };

  // Raw sql.js: the same schema, the same work, no API in between.
  const raw = make();
  createSchema(raw, database);
  let start = performance.now();
  raw.exec('BEGIN');
  for (let i = 0; i < ROWS; i++) {
    const now = Date.now();
    raw.exec('INSERT INTO "todos" (id, createdAt, updatedAt, ownerId, title, done) VALUES (?, ?, ?, ?, ?, ?)', [`id-${i}`, now, now, `owner-${i % OWNERS}`, `todo ${i}`, 0]);
  }
  raw.exec('COMMIT');
  const rawInsert = performance.now() - start;
  start = performance.now();
  for (let i = 0; i < LOOKUPS; i++) raw.all('SELECT * FROM "todos" WHERE "ownerId" = ? ORDER BY createdAt, id LIMIT 10', [`owner-${i % OWNERS}`]);
  const rawLookup = performance.now() - start;

  // The table API: validation, minted ids and timestamps, decoding, budgets.
  const driver = make();
  createSchema(driver, database);
  const db = new Database({ driver, database, meter: new Meter(limits), signer: new CursorSigner(new Uint8Array(32)), clock: systemClock, policies: {}, writable: true });
  const todos = db.table('todos') as unknown as {
    insert(v: Record<string, unknown>): Promise<unknown>;
    find(o: { where: Record<string, unknown>; limit: number }): Promise<unknown[]>;
  };
  start = performance.now();
  driver.exec('BEGIN');
  for (let i = 0; i < ROWS; i++) await todos.insert({ ownerId: `owner-${i % OWNERS}`, title: `todo ${i}` });
  driver.exec('COMMIT');
  const apiInsert = performance.now() - start;
  start = performance.now();
  for (let i = 0; i < LOOKUPS; i++) {
    // A fresh meter per lookup, as each handler call has its own budget.
    const reader = new Database({ driver, database, meter: new Meter(limits), signer: new CursorSigner(new Uint8Array(32)), clock: systemClock, policies: {}, writable: false });
    await (reader.table('todos') as unknown as typeof todos).find({ where: { ownerId: `owner-${i % OWNERS}` }, limit: 10 });
  }
  const apiLookup = performance.now() - start;

  const edits = await rowEditTimes(make);
  const perSecond = (count: number, ms: number) => (count / ms) * 1000;
  return [
    { name: `raw sql.js: inserts per second (${ROWS} in one transaction)`, value: perSecond(ROWS, rawInsert), unit: 'ops/s' },
    { name: 'table API: inserts per second', value: perSecond(ROWS, apiInsert), unit: 'ops/s' },
    { name: 'table API / raw, insert time (goal < 2)', value: apiInsert / rawInsert, unit: 'x' },
    { name: `raw sql.js: indexed lookups per second (10 rows each)`, value: perSecond(LOOKUPS, rawLookup), unit: 'ops/s' },
    { name: 'table API: indexed lookups per second (find by ownerId)', value: perSecond(LOOKUPS, apiLookup), unit: 'ops/s' },
    { name: 'table API / raw, lookup time (goal < 2)', value: apiLookup / rawLookup, unit: 'x' },
    { name: `Data panel row edit (AppRuntime.updateRow, ownedTable, ${EDIT_ROWS} rows) p50`, value: median(edits.edit), unit: 'ms' },
    { name: 'Data panel row edit p95', value: percentile(edits.edit, 95), unit: 'ms' },
    { name: 'the same update by a mutation p50', value: median(edits.mutation), unit: 'ms' },
  ];
}

const EDIT_ROWS = 1000;

/** An owner's edit of a row (the Data panel's write) against a mutation doing the same update, in one runtime. */
async function rowEditTimes(make: Awaited<ReturnType<typeof nodeSqlDriverFactory>>): Promise<{ edit: number[]; mutation: number[] }> {
  const manifest: Manifest = { format: 'platform.application-source.v0', name: 'bench-edits', entrypoints: { client: 'c.tsx', server: 's.ts' }, capabilities: ['database'], database };
  type Ctx = { db: { table(name: string): { insert(v: unknown): Promise<{ id: string }>; update(id: string, patch: unknown): Promise<unknown> } } };
  const definition = defineServer({
    mutations: {
      'todos.add': mutation({ input: { title: 'string' }, handler: async (ctx: Ctx, input: { title: string }) => (await ctx.db.table('todos').insert({ title: input.title })).id }),
      'todos.rename': mutation({ input: { id: 'string', title: 'string' }, handler: async (ctx: Ctx, input: { id: string; title: string }) => void (await ctx.db.table('todos').update(input.id, { title: input.title })) }),
    },
    authPolicies: { todos: ownedTable() },
  } as never);
  const runtime = new AppRuntime({ manifest, definition, driver: make() });
  const alice = personaAuth(manifest.name, 'alice', 'bench');
  const ids: string[] = [];
  for (let i = 0; i < EDIT_ROWS; i++) ids.push((await runtime.call(alice, 'mutation', 'todos.add', { title: `todo ${i}` })).result as string);
  const edit: number[] = [];
  const viaMutation: number[] = [];
  for (let i = 0; i < 500; i++) {
    const id = ids[(i * 7) % ids.length]!;
    let start = performance.now();
    await runtime.updateRow(alice, 'todos', id, { title: `edited ${i}`, done: i % 2 === 0 });
    edit.push(performance.now() - start);
    start = performance.now();
    await runtime.call(alice, 'mutation', 'todos.rename', { id, title: `renamed ${i}` });
    viaMutation.push(performance.now() - start);
  }
  return { edit, mutation: viaMutation };
}
