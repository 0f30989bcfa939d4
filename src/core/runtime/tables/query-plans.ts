/**
 * Conformance cases for what reads cost: each read shape of the table API (find on a declared index,
 * find/all/page/count under a table policy, page with a cursor, count with a limit) runs over the real
 * engine, and the SQL it emitted is explained there (EXPLAIN QUERY PLAN): an index is searched, and no
 * row is sorted ("USE TEMP B-TREE FOR ORDER BY"), so a read stops at its limit whatever the table holds.
 * Also: a database made by the runtime before declared indexes ended in (createdAt, id) gets the new
 * indexes when opened, once, rows kept in their order. Framework-neutral, like ./conformance.ts.
 */
import type { TableDeclaration } from '../../manifest';
import { testClock } from '../clock';
import { CursorSigner } from '../cursor';
import { ensureSchema, META_TABLE, syncIndexes } from '../database-schema';
import { CHUNKS_TABLE, OBJECTS_TABLE, SqlObjectStore } from '../storage';
import { DEFAULT_LIMITS, Meter } from '../limits';
import type { SqlDriver, SqlDriverFactory, SqlValue } from '../sql-driver';
import { assert, assertEqual, type ConformanceCase } from './conformance';
import { Database, type TablePolicyContext } from './database';
import { createIndexStatements, createSchema, type PolicyKind } from './schema';
import { databaseIdentity } from './schema-change';
import { isWritableHandle, type TableHandle, type TableRow, type WritableTableHandle } from './table';

/** A driver that keeps the SELECTs passed through it, and every statement (our own interface, over the real engine). */
class RecordingDriver implements SqlDriver {
  readonly selects: Array<{ sql: string; params: readonly SqlValue[] }> = [];
  readonly statements: Array<{ sql: string; params: readonly SqlValue[] }> = [];
  constructor(readonly inner: SqlDriver) {}
  exec(sql: string, params: readonly SqlValue[] = []): void {
    this.statements.push({ sql, params });
    this.inner.exec(sql, params);
  }
  all(sql: string, params: readonly SqlValue[] = []): Array<Record<string, SqlValue>> {
    this.statements.push({ sql, params });
    if (/^\s*SELECT\b/i.test(sql)) this.selects.push({ sql, params });
    return this.inner.all(sql, params);
  }
  changes(): number {
    return this.inner.changes();
  }
  transaction<T>(work: () => Promise<T>, options?: { readOnly?: boolean }): Promise<T> {
    return this.inner.transaction(work, options);
  }
  transactionSync<T>(work: () => T): T {
    return this.inner.transactionSync(work);
  }
  storedBytes(): number {
    return this.inner.storedBytes();
  }
  close(): void {
    this.inner.close();
  }
}

const TABLES: Record<string, TableDeclaration> = {
  things: {
    fields: { tag: { type: 'string' }, kind: { type: 'string' }, n: { type: 'number' }, slug: { type: 'string' } },
    indexes: { byTag: ['tag'], byTagKind: ['tag', 'kind'], bySlug: { columns: ['slug'], unique: true } },
  },
  notes: { fields: { ownerId: { type: 'string' }, tag: { type: 'string' } }, indexes: { byTag: ['tag'] } },
  cards: { fields: { workspaceId: { type: 'string' }, title: { type: 'string' } } },
};
const POLICIES = new Map<string, PolicyKind>([
  ['notes', 'ownedTable'],
  ['cards', 'workspaceTable'],
]);
const START = Date.UTC(2026, 0, 1);

interface Plans {
  driver: RecordingDriver;
  call(policies?: Record<string, TablePolicyContext>, writable?: boolean): { w(name: string): WritableTableHandle; r(name: string): TableHandle };
  /** Runs `read`, then explains each SELECT it made: searched through an index, nothing sorted. */
  expectIndexed(label: string, read: () => Promise<unknown>, index?: RegExp): Promise<void>;
}

async function withPlans(make: SqlDriverFactory, body: (p: Plans) => Promise<void>): Promise<void> {
  const driver = new RecordingDriver(make());
  try {
    createSchema(driver, { tables: TABLES }, POLICIES);
    const clock = testClock(START, 42);
    const signer = new CursorSigner(new Uint8Array(32).fill(7));
    const call = (policies: Record<string, TablePolicyContext> = {}, writable = true) => {
      const db = new Database({ driver, database: { tables: TABLES }, meter: new Meter({ ...DEFAULT_LIMITS }), signer, clock, policies, writable });
      return {
        w: (name: string) => {
          const handle = db.table(name);
          assert(isWritableHandle(handle), 'a writable handle');
          return handle;
        },
        r: (name: string) => db.table(name),
      };
    };
    // A few rows per shape (the plan does not depend on them; the answers are checked too).
    const owner = call({ notes: { kind: 'ownedTable', appUserId: 'u1' }, cards: { kind: 'workspaceTable', workspaceIds: ['w1', 'w2', 'w3'] } });
    for (let i = 0; i < 12; i++) {
      await owner.w('things').insert({ tag: `t${i % 3}`, kind: `k${i % 2}`, n: i, slug: `s${i}` });
      await owner.w('notes').insert({ tag: `t${i % 3}` });
      await owner.w('cards').insert({ workspaceId: `w${(i % 3) + 1}`, title: `c${i}` });
      clock.advance(i % 4 === 0 ? 0 : 1000);
    }
    const expectIndexed = async (label: string, read: () => Promise<unknown>, index?: RegExp) => {
      driver.selects.length = 0;
      await read();
      assert(driver.selects.length > 0, `${label}: made no SELECT`);
      for (const { sql, params } of driver.selects) {
        const plan = driver.inner.all(`EXPLAIN QUERY PLAN ${sql}`, params).map((row) => String(row.detail));
        const text = `${label}\n  sql:  ${sql}\n  plan: ${plan.join(' | ')}`;
        assert(!plan.some((line) => /TEMP B-TREE/.test(line)), `${text}\n  sorts the matching rows`);
        assert(!plan.some((line) => /^SCAN (?!\(|CONSTANT)/.test(line) && !/USING (COVERING )?INDEX/.test(line)), `${text}\n  scans the table`);
        assert(plan.some((line) => /^SEARCH .* USING (COVERING )?INDEX|^SEARCH .* USING INTEGER PRIMARY KEY|^SCAN .* USING (COVERING )?INDEX/.test(line)), `${text}\n  uses no index`);
        if (index) assert(plan.some((line) => index.test(line)), `${text}\n  does not use ${String(index)}`);
      }
    };
    await body({ driver, call, expectIndexed });
  } finally {
    driver.close();
  }
}

const ids = (rows: readonly TableRow[]) => rows.map((row) => row.id);

export const queryPlanConformance: ConformanceCase[] = [
  {
    // The filed cold start: an engine over 1M rows took seconds to be ready. What the runtime does when it
    // opens a database (AppRuntime's constructor: ensureSchema, which reads the meta row and syncIndexes)
    // and what each call's object store does first must not read the tables' rows, so that it costs the
    // same whatever they hold.
    name: 'plans: opening a database with rows (schema check, index sync, object store) reads no table\'s rows',
    run: async (make) => {
      const driver = new RecordingDriver(make());
      try {
        const database = { tables: TABLES };
        assertEqual(ensureSchema(driver, database, POLICIES), 'created', 'a new database');
        const series = 'WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < 2000)';
        driver.transactionSync(() => {
          driver.exec(`INSERT INTO "things" ("id", "createdAt", "updatedAt", "tag", "kind", "n", "slug") ${series} SELECT printf('t%06d', i), ${START} + i, ${START}, 't' || (i % 7), 'k' || (i % 2), i, 's' || i FROM s`);
          driver.exec(`INSERT INTO "notes" ("id", "createdAt", "updatedAt", "ownerId", "tag") ${series} SELECT printf('n%06d', i), ${START} + i, ${START}, 'u' || (i % 3), 't' || (i % 7) FROM s`);
          driver.exec(`INSERT INTO "cards" ("id", "createdAt", "updatedAt", "workspaceId", "title") ${series} SELECT printf('c%06d', i), ${START} + i, ${START}, 'w' || (i % 3), 'c' || i FROM s`);
        });
        driver.statements.length = 0;
        assertEqual(ensureSchema(driver, database, POLICIES), 'unchanged', 'opened again, the same declaration');
        new SqlObjectStore(driver);
        assert(driver.statements.length > 0, 'the open made statements');
        const user = new Set(['things', 'notes', 'cards', META_TABLE, OBJECTS_TABLE, CHUNKS_TABLE]);
        for (const { sql, params } of driver.statements) {
          assert(!/^\s*(CREATE|DROP|INSERT|UPDATE|DELETE|ALTER)\b/i.test(sql), `the open wrote to a database already as wanted: ${sql}`);
          const plan = driver.inner.all(`EXPLAIN QUERY PLAN ${sql}`, params).map((row) => String(row.detail));
          const text = `the open's statement\n  sql:  ${sql}\n  plan: ${plan.join(' | ')}`;
          // A SCAN of a table (sqlite_master's few rows aside) reads every row; a SEARCH reads what it finds.
          for (const line of plan) {
            const scanned = /^SCAN (\S+)/.exec(line)?.[1];
            assert(!scanned || !user.has(scanned), `${text}\n  scans ${scanned}`);
          }
          assert(!/\bcount\s*\(/i.test(sql), `${text}\n  counts rows`);
        }
      } finally {
        driver.close();
      }
    },
  },
  {
    name: 'plans: find with equality on a declared index and a limit searches the index in (createdAt, id) order, no sort',
    run: (make) =>
      withPlans(make, async ({ call, expectIndexed }) => {
        const things = call({}, false).r('things');
        await expectIndexed('find by tag', () => things.find({ where: { tag: 't1' }, limit: 2 }), /INDEX things__byTag \(tag=\?\)/);
        await expectIndexed('find by tag and kind', () => things.find({ where: { tag: 't1', kind: 'k1' }, limit: 2 }), /INDEX things__byTagKind \(tag=\? AND kind=\?\)/);
        await expectIndexed('first by tag', () => things.first({ where: { tag: 't2' } }));
        await expectIndexed('find by a unique index', () => things.find({ where: { slug: 's3' } }), /INDEX things__bySlug/);
        await expectIndexed('get', () => things.get('x'));
        const all = await things.find({ where: { tag: 't1' }, limit: 100 });
        assertEqual(all.map((row) => row.n), [1, 4, 7, 10], 'the rows of t1 in insertion order');
      }),
  },
  {
    name: 'plans: page through a declared index, first page and after a cursor, searches the index, no sort',
    run: (make) =>
      withPlans(make, async ({ call, expectIndexed }) => {
        const things = call({}, false).r('things');
        let cursor: string | null = null;
        await expectIndexed('page 1', async () => (cursor = (await things.page({ where: { tag: 't0' }, limit: 2 })).cursor), /INDEX things__byTag/);
        assert(cursor !== null, 'a cursor after the first page');
        let rest: TableRow[] = [];
        await expectIndexed('page 2', async () => (rest = (await things.page({ where: { tag: 't0' }, limit: 2, cursor: cursor! })).rows), /INDEX things__byTag \(tag=\? AND \(createdAt,id\)>\(\?,\?\)\)/);
        assertEqual(rest.map((row) => row.n), [6, 9], 'the second page');
      }),
  },
  {
    name: 'plans: count with a limit stops at the limit on an index',
    run: (make) =>
      withPlans(make, async ({ call, expectIndexed }) => {
        const things = call({}, false).r('things');
        let n = 0;
        await expectIndexed('count by tag, limit 1', async () => (n = await things.count({ where: { tag: 't1' }, limit: 1 })), /COVERING INDEX things__byTag/);
        assertEqual(n, 1, 'count capped at its limit');
        await expectIndexed('count by tag', async () => (n = await things.count({ where: { tag: 't1' } })));
        assertEqual(n, 4, 'count of t1');
      }),
  },
  {
    name: 'plans: an owned table is read through its policy index (ownerId, createdAt, id): all, find, page, count',
    run: (make) =>
      withPlans(make, async ({ call, expectIndexed }) => {
        const mine = call({ notes: { kind: 'ownedTable', appUserId: 'u1' } }, false).r('notes');
        let rows: TableRow[] = [];
        await expectIndexed('all on an owned table', async () => (rows = await mine.all()), /INDEX __platform_policy__notes \(ownerId=\?\)/);
        assertEqual(rows.length, 12, 'all of the owner’s rows');
        await expectIndexed('find on an owned table', () => mine.find({ where: { tag: 't1' }, limit: 2 }));
        await expectIndexed('page on an owned table', () => mine.page({ where: { tag: 't1' }, limit: 2 }));
        await expectIndexed('count on an owned table', () => mine.count({ where: { tag: 't1' }, limit: 1 }));
        const theirs = call({ notes: { kind: 'ownedTable', appUserId: 'u2' } }, false).r('notes');
        assertEqual(ids(await theirs.all()), [], 'another owner sees none');
      }),
  },
  {
    name: 'plans: a workspace table is read through its policy index (workspaceId, createdAt, id), one workspace and several',
    run: (make) =>
      withPlans(make, async ({ call, expectIndexed }) => {
        const one = call({ cards: { kind: 'workspaceTable', workspaceIds: ['w1'] } }, false).r('cards');
        await expectIndexed('all in one workspace', () => one.all(), /INDEX __platform_policy__cards \(workspaceId=\?\)/);
        const two = call({ cards: { kind: 'workspaceTable', workspaceIds: ['w3', 'w1'] } }, false).r('cards');
        let rows: TableRow[] = [];
        await expectIndexed('all in two workspaces', async () => (rows = await two.all()), /INDEX __platform_policy__cards \(workspaceId=\?\)/);
        assertEqual(rows.map((row) => row.title), ['c0', 'c2', 'c3', 'c5', 'c6', 'c8', 'c9', 'c11'], 'the rows of w1 and w3, merged in (createdAt, id) order');
        let page: { rows: TableRow[]; cursor: string | null } = { rows: [], cursor: null };
        await expectIndexed('page in two workspaces', async () => (page = await two.page({ where: { id: rows[2]!.id } })));
        assertEqual(ids(page.rows), [rows[2]!.id], 'page by id within the workspaces');
      }),
  },
  {
    name: 'plans: a database made before indexes ended in (createdAt, id) gets them when opened, once, rows kept in order',
    run: async (make) => {
      const driver = make();
      try {
        // What the runtime wrote before: declared indexes on their columns only, no policy index.
        const database = { tables: { notes: TABLES.notes! } };
        driver.transactionSync(() => {
          driver.exec(`CREATE TABLE ${META_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
          driver.exec(`INSERT INTO ${META_TABLE} (key, value) VALUES ('schema', ?), ('database', ?)`, [databaseIdentity(database), JSON.stringify(database)]);
          driver.exec('CREATE TABLE "notes" (\n  "id" TEXT PRIMARY KEY NOT NULL,\n  "createdAt" INTEGER NOT NULL,\n  "updatedAt" INTEGER NOT NULL,\n  "ownerId" TEXT NOT NULL,\n  "tag" TEXT NOT NULL\n)');
          driver.exec('CREATE INDEX "__platform_order__notes" ON "notes" ("createdAt", "id")');
          driver.exec('CREATE INDEX "notes__byTag" ON "notes" ("tag")');
          for (let i = 0; i < 30; i++) driver.exec('INSERT INTO "notes" VALUES (?, ?, ?, ?, ?)', [`id${String(29 - i).padStart(2, '0')}`, START + Math.floor(i / 3), START, `u${i % 2}`, `t${i % 3}`]);
        });
        const ordered = driver.all('SELECT "id", "createdAt", "ownerId", "tag" FROM "notes" ORDER BY "createdAt", "id"');
        const policies = new Map<string, PolicyKind>([['notes', 'ownedTable']]);
        // The meta table is read and may be rewritten by ensureSchema; that is done in a separate step.
        assertEqual(ensureSchema(driver, database, policies), 'unchanged', 'the declaration is the one stored');
        const indexes = driver.all(`SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'notes' AND sql IS NOT NULL ORDER BY name`).map((row) => row.sql);
        assertEqual(
          indexes,
          [
            'CREATE INDEX "__platform_order__notes" ON "notes" ("createdAt", "id")',
            'CREATE INDEX "__platform_policy__notes" ON "notes" ("ownerId", "createdAt", "id")',
            'CREATE INDEX "notes__byTag" ON "notes" ("tag", "createdAt", "id")',
          ],
          'the declared index ends in (createdAt, id); the policy index is made',
        );
        assertEqual(indexes, createIndexStatements('notes', database.tables.notes, 'ownedTable').sort(), 'the indexes this runtime makes');
        assertEqual(driver.all('SELECT "id", "createdAt", "ownerId", "tag" FROM "notes" ORDER BY "createdAt", "id"'), ordered, 'every row kept, in the same order');
        assertEqual(syncIndexes(driver, database, policies), false, 'a second open changes nothing');
        const db = new Database({ driver, database, meter: new Meter({ ...DEFAULT_LIMITS }), signer: new CursorSigner(new Uint8Array(32)), clock: testClock(START, 1), policies: { notes: { kind: 'ownedTable', appUserId: 'u1' } }, writable: false });
        const expected = ordered.filter((row) => row.ownerId === 'u1' && row.tag === 't2').map((row) => row.id);
        assertEqual(ids(await db.table('notes').find({ where: { tag: 't2' } })), expected, 'find answers the same rows in the same order');
      } finally {
        driver.close();
      }
    },
  },
  {
    name: 'plans: a database recording only its schema hash, with indexes on declared columns, reads back and changes to the new indexes',
    run: async (make) => {
      const driver = make();
      try {
        const before = { tables: { notes: TABLES.notes! } };
        driver.transactionSync(() => {
          driver.exec(`CREATE TABLE ${META_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
          driver.exec(`INSERT INTO ${META_TABLE} (key, value) VALUES ('schema', ?)`, [databaseIdentity(before)]);
          driver.exec('CREATE TABLE "notes" (\n  "id" TEXT PRIMARY KEY NOT NULL,\n  "createdAt" INTEGER NOT NULL,\n  "updatedAt" INTEGER NOT NULL,\n  "ownerId" TEXT NOT NULL,\n  "tag" TEXT NOT NULL\n)');
          driver.exec('CREATE INDEX "__platform_order__notes" ON "notes" ("createdAt", "id")');
          driver.exec('CREATE INDEX "notes__byTag" ON "notes" ("tag")');
          for (let i = 0; i < 5; i++) driver.exec('INSERT INTO "notes" VALUES (?, ?, ?, ?, ?)', [`id${i}`, START + i, START, 'u1', `t${i % 2}`]);
        });
        const after = { tables: { notes: { ...TABLES.notes!, fields: { ...TABLES.notes!.fields, note: { type: 'string' as const, optional: true } } } } };
        assertEqual(ensureSchema(driver, after, new Map([['notes', 'ownedTable']])), 'changed', 'a compatible change');
        const indexes = driver.all(`SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'notes' AND sql IS NOT NULL ORDER BY name`).map((row) => row.sql);
        assertEqual(indexes, createIndexStatements('notes', after.tables.notes, 'ownedTable').sort(), 'the indexes this runtime makes');
        assertEqual(driver.all('SELECT "id" FROM "notes" ORDER BY "createdAt", "id"').map((row) => row.id), ['id0', 'id1', 'id2', 'id3', 'id4'], 'rows kept');
      } finally {
        driver.close();
      }
    },
  },
];
