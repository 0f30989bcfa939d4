/**
 * Data at size (issue 31, item 3): the reads an app makes, with 10k and 1M rows in its tables, each as
 * a ratio to a trivial query in the same run, and the 1M/10k ratio of those ratios (goal < 2: a read
 * that stops at its limit costs the same whatever the table holds). Also the cold open of a database of
 * that size (the runtime ready over it) and its first query.
 *
 * Engine: AppRuntime over sql.js in this process (the playground's engine). The rows are made by SQL in
 * one transaction in the engine's own database (INSERT … SELECT over a recursive CTE), not by mutations.
 * Not measured here yet: `platform dev` and a hosted deploy over workerd (see docs/runtime.md).
 */
import { nodeSqlDriverFactory } from '../src/adapters/node/sqljs';
import type { Manifest } from '../src/core/manifest';
import { personaAuth, AppRuntime, syncIndexes, type SqlDriver } from '../src/core/runtime';
import { defineServer, ownedTable, query } from '../src/modules/server';
import { median, type Row } from './stats';

const SIZES = (process.env.BENCH_DATA_SIZES ?? '10000,1000000').split(',').map(Number);
const CALLS = 200;
const TAGS = 100;

const manifest: Manifest = {
  format: 'platform.application-source.v0',
  name: 'bench-data',
  entrypoints: { client: 'c.tsx', server: 's.ts' },
  capabilities: ['database'],
  database: {
    tables: {
      items: { fields: { tag: { type: 'string' }, n: { type: 'number' } }, indexes: { byTag: ['tag'] } },
      notes: { fields: { ownerId: { type: 'string' }, tag: { type: 'string' } }, indexes: { byTag: ['tag'] } },
    },
  },
};

type Handle = {
  find(o: unknown): Promise<unknown[]>;
  page(o: unknown): Promise<{ rows: unknown[]; cursor: string | null }>;
  count(o: unknown): Promise<number>;
};
type Ctx = { db: { table(name: string): Handle } };
const definition = defineServer({
  queries: {
    ping: query({ input: {}, handler: async () => 1 }),
    'items.byTag': query({ input: { tag: 'string' }, handler: async (ctx: Ctx, input: { tag: string }) => (await ctx.db.table('items').find({ where: { tag: input.tag }, limit: 10 })).length }),
    'notes.byTag': query({ input: { tag: 'string' }, handler: async (ctx: Ctx, input: { tag: string }) => (await ctx.db.table('notes').find({ where: { tag: input.tag }, limit: 10 })).length }),
    'items.page': query({ input: { tag: 'string' }, handler: async (ctx: Ctx, input: { tag: string }) => (await ctx.db.table('items').page({ where: { tag: input.tag }, limit: 100 })).rows.length }),
    'items.count': query({ input: { tag: 'string' }, handler: async (ctx: Ctx, input: { tag: string }) => ctx.db.table('items').count({ where: { tag: input.tag }, limit: 1 }) }),
  },
  authPolicies: { notes: ownedTable() },
} as never);

const alice = personaAuth(manifest.name, 'alice', 'bench');

/** `rows` rows in items and in notes (all alice's, TAGS tags), by SQL in one transaction. */
function generate(driver: SqlDriver, rows: number): void {
  const start = Date.UTC(2026, 0, 1);
  // Rows first, indexes after (as a bulk load does): the runtime's syncIndexes makes them again.
  const indexes = driver.all(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('items', 'notes') AND sql IS NOT NULL`);
  driver.exec('BEGIN');
  for (const { name } of indexes) driver.exec(`DROP INDEX "${String(name)}"`);
  const series = `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ${rows})`;
  driver.exec(`INSERT INTO "items" ("id", "createdAt", "updatedAt", "tag", "n") ${series} SELECT printf('i%025d', i), ${start} + i, ${start} + i, 't' || (i % ${TAGS}), i FROM s`);
  driver.exec(`INSERT INTO "notes" ("id", "createdAt", "updatedAt", "ownerId", "tag") ${series} SELECT printf('n%025d', i), ${start} + i, ${start} + i, ?, 't' || (i % ${TAGS}) FROM s`, [alice.appUserId]);
  driver.exec('COMMIT');
  syncIndexes(driver, manifest.database!, new Map([['notes', 'ownedTable']]));
}

async function p50(runtime: AppRuntime, name: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const input = name === 'ping' ? {} : { tag: `t${(i * 37) % TAGS}` };
    const start = performance.now();
    const outcome = await runtime.call(alice, 'query', name, input);
    times.push(performance.now() - start);
    if (outcome.status !== 200) throw new Error(`${name} answered ${outcome.status}: ${JSON.stringify(outcome.error)}`);
  }
  return median(times);
}

const READS = [
  ['items.byTag', 'find on a declared index (limit 10)'],
  ['notes.byTag', 'find on an owned table (limit 10)'],
  ['items.page', 'page of 100'],
  ['items.count', 'count({ limit: 1 })'],
] as const;

export async function dataRows(): Promise<Row[]> {
  const make = await nodeSqlDriverFactory();
  const rows: Row[] = [];
  const ratios = new Map<string, number[]>();
  for (const size of SIZES) {
    const label = size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`;
    const seed = make();
    // The schema as the runtime makes it, then the rows.
    new AppRuntime({ manifest, definition, driver: seed });
    let start = performance.now();
    generate(seed, size);
    rows.push({ name: `sql.js, ${label} rows: generate ${size.toLocaleString('en-US')} rows in items and in notes (one transaction, then the indexes)`, value: performance.now() - start, unit: 'ms' });
    const file = seed.export!();
    seed.close();
    // Cold: a database of this size opened, the runtime ready over it, then its first query.
    const driver = make(file);
    start = performance.now();
    const runtime = new AppRuntime({ manifest, definition, driver });
    rows.push({ name: `sql.js, ${label} rows (${(file.byteLength / 1e6).toFixed(0)} MB): cold runtime ready over the opened database`, value: performance.now() - start, unit: 'ms' });
    start = performance.now();
    await runtime.call(alice, 'query', 'items.byTag', { tag: 't1' });
    rows.push({ name: `sql.js, ${label} rows: first query after it`, value: performance.now() - start, unit: 'ms' });
    // Warm-up: every query once over, so the baseline and the reads are measured alike.
    for (const name of ['ping', ...READS.map(([read]) => read)]) await p50(runtime, name);
    const ping = await p50(runtime, 'ping');
    rows.push({ name: `sql.js, ${label} rows: trivial query p50 (baseline)`, value: ping, unit: 'ms' });
    for (const [name, what] of READS) {
      const value = await p50(runtime, name);
      rows.push({ name: `sql.js, ${label} rows: ${what} p50`, value, unit: 'ms' });
      rows.push({ name: `sql.js, ${label} rows: ${what} / trivial query`, value: value / ping, unit: 'x' });
      (ratios.get(what) ?? ratios.set(what, []).get(what)!).push(value / ping);
    }
    driver.close();
  }
  if (SIZES.length > 1) {
    for (const [what, values] of ratios) rows.push({ name: `sql.js: ${what}, ratio at ${SIZES.at(-1)!.toLocaleString('en-US')} rows / at ${SIZES[0]!.toLocaleString('en-US')} (goal < 2)`, value: values.at(-1)! / values[0]!, unit: 'x' });
  }
  return rows;
}
