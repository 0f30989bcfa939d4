// Rows come back in the order they were inserted, even when many share a millisecond: through find,
// page, a runtime restart over the same database, and a state export and import round trip.
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../../../adapters/node/sqljs';
import { defineServer, mutation, query } from '../../../modules/server';
import type { Manifest } from '../../manifest';
import { exportState, importState } from '../../state';
import { orderedId, randomId, systemClock, testClock, type RuntimeClock } from '../clock';
import { personaAuth } from '../personas';
import { AppRuntime } from '../runtime';
import type { SqlDriverFactory } from '../sql-driver';

const manifest = {
  format: 'platform.application-source.v0',
  name: 'order',
  entrypoints: { client: 'src/client.tsx', server: 'src/server.ts' },
  capabilities: ['database'],
  database: { tables: { items: { fields: { n: { type: 'number' }, group: { type: 'string' } }, indexes: { byGroup: ['group'] } } } },
} as unknown as Manifest;

type Row = { id: string; n: number; createdAt: Date };
const definition = defineServer({
  queries: {
    'items.find': query({ input: { limit: 'number' }, handler: (ctx: any, input: { limit: number }) => ctx.db.table('items').find({ where: { group: 'g' }, limit: input.limit }) }),
    'items.page': query({ input: { cursor: 'json' }, handler: (ctx: any, input: { cursor: unknown }) => ctx.db.table('items').page({ where: { group: 'g' }, limit: 99, ...(typeof input.cursor === 'string' ? { cursor: input.cursor } : {}) }) }),
  },
  mutations: {
    // One tight loop: many inserts land in the same millisecond of the real clock.
    'items.addMany': mutation({
      input: { from: 'number', count: 'number' },
      handler: async (ctx: any, input: { from: number; count: number }) => {
        for (let n = input.from; n < input.from + input.count; n++) await ctx.db.table('items').insert({ n, group: 'g' });
      },
    }),
  },
} as never);

const alice = personaAuth('order', 'alice');
let factory: SqlDriverFactory;
beforeAll(async () => {
  factory = await nodeSqlDriverFactory();
});

async function ok<T>(runtime: AppRuntime, kind: 'query' | 'mutation', name: string, input: unknown): Promise<T> {
  const outcome = await runtime.call(alice, kind, name, input);
  expect(outcome.error).toBeUndefined();
  return outcome.result as T;
}

async function readAll(runtime: AppRuntime): Promise<{ found: number[]; paged: number[] }> {
  const found = (await ok<Row[]>(runtime, 'query', 'items.find', { limit: 1000 })).map((row) => row.n);
  const paged: number[] = [];
  let cursor: string | null = null;
  do {
    const page: { rows: Row[]; cursor: string | null } = await ok(runtime, 'query', 'items.page', { cursor });
    paged.push(...page.rows.map((row) => row.n));
    cursor = page.cursor;
  } while (cursor !== null);
  return { found, paged };
}

const inOrder = (count: number) => Array.from({ length: count }, (_, n) => n);

describe('insertion order', () => {
  it('1,000 rows inserted in one tight loop come back in insertion order through find, page and an export round trip', async () => {
    const driver = factory();
    const runtime = new AppRuntime({ manifest, definition, driver, clock: systemClock });
    await ok(runtime, 'mutation', 'items.addMany', { from: 0, count: 1000 });
    const stamps = driver.all('SELECT "createdAt" AS t, count(*) AS c FROM items GROUP BY "createdAt"');
    expect(Math.max(...stamps.map((s) => Number(s.c)))).toBeGreaterThan(1); // many shared a millisecond
    expect(await readAll(runtime)).toEqual({ found: inOrder(1000), paged: inOrder(1000) });

    const exported = exportState(driver, manifest);
    if (!exported.ok) throw new Error('export refused');
    const target = factory();
    expect(importState(target, manifest, JSON.parse(JSON.stringify(exported.document)))).toEqual({ ok: true, counts: { items: 1000 } });
    expect(await readAll(new AppRuntime({ manifest, definition, driver: target }))).toEqual({ found: inOrder(1000), paged: inOrder(1000) });
  });

  it('keeps order across a runtime restart within the same millisecond (a frozen clock)', async () => {
    const driver = factory();
    const clock = testClock();
    await ok(new AppRuntime({ manifest, definition, driver, clock }), 'mutation', 'items.addMany', { from: 0, count: 400 });
    // A new runtime over the same database (the sandbox restarted): the order continues.
    const restarted = new AppRuntime({ manifest, definition, driver, clock });
    await ok(restarted, 'mutation', 'items.addMany', { from: 400, count: 400 });
    expect(await readAll(restarted)).toEqual({ found: inOrder(800), paged: inOrder(800) });
  });

  it('rows stored with random ids (before ids were ordered) stay readable, and new rows sort after them', async () => {
    const driver = factory();
    const clock = testClock();
    const runtime = new AppRuntime({ manifest, definition, driver, clock });
    await ok(runtime, 'mutation', 'items.addMany', { from: 0, count: 1 });
    const legacy = Array.from({ length: 5 }, () => randomId(clock));
    for (const [i, id] of legacy.entries()) driver.exec('INSERT INTO items (id, "createdAt", "updatedAt", n, "group") VALUES (?, ?, ?, ?, ?)', [id, clock.now(), clock.now(), 100 + i, 'g']);
    await ok(runtime, 'mutation', 'items.addMany', { from: 200, count: 3 });
    const { found } = await readAll(runtime);
    expect(found).toHaveLength(9);
    expect(found.slice(-3)).toEqual([200, 201, 202]);
  });
});

describe('orderedId', () => {
  const shape = /^[a-z2-7]{26}$/;

  it('has the platform id shape and sorts by time first', () => {
    const clock = testClock();
    const early = orderedId(clock, Date.UTC(2026, 0, 1));
    const late = orderedId(clock, Date.UTC(2026, 0, 1) + 1);
    expect(early).toMatch(shape);
    expect(early < late).toBe(true);
    expect(orderedId(clock, 0) < orderedId(clock, 1)).toBe(true);
  });

  it('sorts after the last id of the same millisecond, by a step that does not reveal the next id', () => {
    const clock = testClock();
    const time = Date.UTC(2026, 5, 1);
    let last = orderedId(clock, time);
    const steps = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const next = orderedId(clock, time, last);
      expect(next).toMatch(shape);
      expect(next > last).toBe(true);
      expect(next.slice(0, 10)).toBe(last.slice(0, 10));
      steps.add(next.slice(-7));
      last = next;
    }
    expect(steps.size).toBe(200);
  });

  it('passes over an id of another shape, and gives a fresh id past the top of the id space', () => {
    const clock: RuntimeClock = testClock();
    const time = Date.UTC(2026, 5, 1);
    expect(orderedId(clock, time, 'not-an-id')).toMatch(shape);
    expect(orderedId(clock, time, 'zzzzzzzzzzzzzzzzzzzzzzzzzz')).toMatch(shape);
    const small = '22222222222222222222222222';
    expect(orderedId(clock, time, small) > small).toBe(true);
  });
});
