/** Runtime figures: the table API against raw sql.js on the same table, and each template's test run. */
import { nodeSqlDriverFactory } from '../src/adapters/node/sqljs';
import type { Manifest } from '../src/core/manifest';
import { systemClock } from '../src/core/runtime/clock';
import { CursorSigner } from '../src/core/runtime/cursor';
import { DEFAULT_LIMITS, Meter } from '../src/core/runtime/limits';
import { createSchema } from '../src/core/runtime/tables/schema';
import { Database } from '../src/core/runtime/tables/database';
import type { Row } from './stats';

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

  const perSecond = (count: number, ms: number) => (count / ms) * 1000;
  return [
    { name: `raw sql.js: inserts per second (${ROWS} in one transaction)`, value: perSecond(ROWS, rawInsert), unit: 'ops/s' },
    { name: 'table API: inserts per second', value: perSecond(ROWS, apiInsert), unit: 'ops/s' },
    { name: 'table API / raw, insert time (goal < 2)', value: apiInsert / rawInsert, unit: 'x' },
    { name: `raw sql.js: indexed lookups per second (10 rows each)`, value: perSecond(LOOKUPS, rawLookup), unit: 'ops/s' },
    { name: 'table API: indexed lookups per second (find by ownerId)', value: perSecond(LOOKUPS, apiLookup), unit: 'ops/s' },
    { name: 'table API / raw, lookup time (goal < 2)', value: apiLookup / rawLookup, unit: 'x' },
  ];
}
