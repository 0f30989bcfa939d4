/**
 * The table API's conformance suite, framework-neutral so the same cases run under Vitest in Node and
 * in a browser: each case takes an SqlDriverFactory and throws on failure. No test-framework imports.
 */
import type { TableDeclaration } from '../../manifest';
import { testClock } from '../clock';
import { CursorSigner } from '../cursor';
import { isRuntimeFault } from '../faults';
import { DEFAULT_LIMITS, Meter, type Limits } from '../limits';
import type { SqlDriver, SqlDriverFactory } from '../sql-driver';
import { Database, type TablePolicyContext } from './database';
import { createSchema, schemaStatements } from './schema';
import { Table, isWritableHandle, tableModel, type TableHandle, type TableRow, type WritableTableHandle } from './table';

export interface ConformanceCase {
  name: string;
  run(make: SqlDriverFactory): Promise<void>;
}

// -------------------------------------------------------------------------------------------------
// Assertions

function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value, function (this: Record<string, unknown>, key, item: unknown) {
      const original = key === '' ? value : this[key];
      if (original instanceof Date) return `Date(${Number.isNaN(original.getTime()) ? 'invalid' : original.toISOString()})`;
      if (original instanceof Uint8Array) return `Uint8Array[${Array.from(original).join(',')}]`;
      if (item === undefined) return '<undefined>';
      if (typeof item === 'bigint') return `${item}n`;
      return item;
    });
  } catch {
    return String(value);
  }
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime());
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return deepEqual(ka, kb) && ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}

export function assertEqual(actual: unknown, expected: unknown, message: string): void {
  if (!deepEqual(actual, expected)) throw new Error(`${message}\n  expected: ${show(expected)}\n  actual:   ${show(actual)}`);
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

function matches(error: unknown, expected: string | RegExp): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return typeof expected === 'string' ? message === expected : expected.test(message);
}

/** Awaits `promise` and expects it to reject with exactly `expected` (a string) or a message matching it (a RegExp). */
export async function assertRejects(promise: Promise<unknown>, expected: string | RegExp, message = 'expected a rejection'): Promise<Error> {
  let result: unknown;
  try {
    result = await promise;
  } catch (error) {
    if (!matches(error, expected)) {
      throw new Error(`${message}\n  expected error: ${String(expected)}\n  actual error:   ${error instanceof Error ? error.message : show(error)}`);
    }
    return error as Error;
  }
  throw new Error(`${message}\n  expected error: ${String(expected)}\n  but it resolved with: ${show(result)}`);
}

export function assertThrows(run: () => unknown, expected: string | RegExp, message = 'expected a throw'): Error {
  try {
    run();
  } catch (error) {
    if (!matches(error, expected)) {
      throw new Error(`${message}\n  expected error: ${String(expected)}\n  actual error:   ${error instanceof Error ? error.message : show(error)}`);
    }
    return error as Error;
  }
  throw new Error(`${message}\n  expected error: ${String(expected)}\n  but it did not throw`);
}

// -------------------------------------------------------------------------------------------------
// Harness

type Tables = Record<string, TableDeclaration>;

interface CallOptions {
  writable?: boolean;
  policies?: Record<string, TablePolicyContext>;
  limits?: Partial<Limits>;
}

interface Call {
  db: Database;
  meter: Meter;
  /** A writable handle (throws if the call is read-only). */
  w(name: string): WritableTableHandle;
  /** The handle as the database gives it. */
  r(name: string): TableHandle;
}

interface Harness {
  driver: SqlDriver;
  clock: ReturnType<typeof testClock>;
  signer: CursorSigner;
  /** Tables reported through onWrite, in order. */
  written: string[];
  /** A fresh handler call: its own meter (budgets start from zero). */
  call(options?: CallOptions): Call;
}

const START = Date.UTC(2026, 0, 1);

function writer(handle: TableHandle): WritableTableHandle {
  if (!isWritableHandle(handle)) throw new Error('expected a writable handle');
  return handle;
}

async function withTables(make: SqlDriverFactory, tables: Tables, body: (h: Harness) => Promise<void>, baseLimits: Partial<Limits> = {}): Promise<void> {
  const driver = make();
  try {
    createSchema(driver, { tables });
    const clock = testClock(START, 42);
    const signer = new CursorSigner(new Uint8Array(32).fill(7));
    const written: string[] = [];
    const call = (options: CallOptions = {}): Call => {
      const meter = new Meter({ ...DEFAULT_LIMITS, ...baseLimits, ...options.limits });
      const db = new Database({
        driver,
        database: { tables },
        meter,
        signer,
        clock,
        policies: options.policies ?? {},
        writable: options.writable ?? true,
        onWrite: (table) => written.push(table),
      });
      return { db, meter, w: (name) => writer(db.table(name)), r: (name) => db.table(name) };
    };
    await body({ driver, clock, signer, written, call });
  } finally {
    driver.close();
  }
}

const ids = (rows: readonly TableRow[]) => rows.map((row) => row.id);

/** Inserts `count` rows, advancing the clock by `step` ms after each. */
async function insertMany(handle: WritableTableHandle, clock: { advance(ms: number): void }, count: number, value: (i: number) => Record<string, unknown>, step = 1000): Promise<TableRow[]> {
  const out: TableRow[] = [];
  for (let i = 0; i < count; i++) {
    out.push(await handle.insert(value(i)));
    clock.advance(step);
  }
  return out;
}

/** Every row reachable through page(), following cursors to the end. */
async function walk(handle: TableHandle, where: Record<string, unknown>, limit: number): Promise<{ rows: TableRow[]; pages: number[] }> {
  const rows: TableRow[] = [];
  const pages: number[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 1000; guard++) {
    const page = await handle.page(cursor === undefined ? { where, limit } : { where, limit, cursor });
    rows.push(...page.rows);
    pages.push(page.rows.length);
    if (page.cursor === null) return { rows, pages };
    cursor = page.cursor;
  }
  throw new Error('page() never returned a null cursor');
}

// -------------------------------------------------------------------------------------------------
// Fixtures

const TYPES: Tables = {
  others: { fields: { label: { type: 'string' } } },
  things: {
    fields: {
      name: { type: 'string' },
      amount: { type: 'number' },
      flag: { type: 'boolean' },
      at: { type: 'datetime' },
      blob: { type: 'bytes' },
      data: { type: 'json' },
      other: { type: 'ref', table: 'others', optional: true },
      note: { type: 'string', optional: true },
      score: { type: 'number', optional: true },
      ok: { type: 'boolean', optional: true },
      when: { type: 'datetime', optional: true },
      raw: { type: 'bytes', optional: true },
      meta: { type: 'json', optional: true },
    },
    indexes: { byNote: ['note'], byName: ['name'] },
  },
};

const THING = {
  name: 'widget',
  amount: -12.5,
  flag: true,
  at: new Date(Date.UTC(2025, 5, 1, 12, 30, 15, 250)),
  blob: new Uint8Array([0, 1, 254, 255]),
  data: { list: [1, 'two', null, { deep: true }], empty: {} },
};

const OPTIONAL_FIELDS = ['other', 'note', 'score', 'ok', 'when', 'raw', 'meta'] as const;

const TODOS: Tables = {
  todos: {
    fields: {
      list: { type: 'string' },
      done: { type: 'boolean' },
      title: { type: 'string' },
      priority: { type: 'number', optional: true },
      due: { type: 'datetime', optional: true },
    },
    indexes: {
      byList: ['list', 'done', 'title'],
      byTitle: { columns: [{ column: 'title', collate: 'nocase' }] },
      byExpr: { columns: [{ expression: 'lower(title)' }, 'priority'] },
      byDue: ['due'],
    },
  },
};

const ITEMS: Tables = {
  items: { fields: { group: { type: 'string' }, n: { type: 'number' } }, indexes: { byGroup: ['group'] } },
  extras: { fields: { group: { type: 'string' }, n: { type: 'number' } }, indexes: { byGroup: ['group'] } },
};

const TAGS: Tables = {
  tags: { idSource: 'application', fields: { label: { type: 'string', unique: true } }, indexes: { byLabel: ['label'] } },
};

const POLICY: Tables = {
  notes: { fields: { ownerId: { type: 'string' }, text: { type: 'string' } }, indexes: { byOwner: ['ownerId'], byText: ['text'] } },
  docs: { fields: { workspaceId: { type: 'string' }, title: { type: 'string' } }, indexes: { byWorkspace: ['workspaceId'], byTitle: ['title'] } },
  loose: { fields: { text: { type: 'string' } } },
};

const ALICE: Record<string, TablePolicyContext> = { notes: { kind: 'ownedTable', appUserId: 'alice' } };
const BOB: Record<string, TablePolicyContext> = { notes: { kind: 'ownedTable', appUserId: 'bob' } };
const member = (...workspaceIds: string[]): Record<string, TablePolicyContext> => ({ docs: { kind: 'workspaceTable', workspaceIds } });

const indexSql = (driver: SqlDriver, name: string) => String(driver.all(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`, [name])[0]?.sql ?? '');

// -------------------------------------------------------------------------------------------------
// Cases

const cases: ConformanceCase[] = [];
const test = (name: string, run: (make: SqlDriverFactory) => Promise<void>) => cases.push({ name, run });

// --- Schema ---------------------------------------------------------------------------------------

test('schema: every table has id, createdAt, updatedAt, its fields with their SQL types, and the order index', (make) =>
  withTables(make, TYPES, async ({ driver }) => {
    const columns = driver.all('PRAGMA table_info("things")').map((c) => [c.name, c.type, c.notnull, c.pk]);
    assertEqual(
      columns,
      [
        ['id', 'TEXT', 1, 1],
        ['createdAt', 'INTEGER', 1, 0],
        ['updatedAt', 'INTEGER', 1, 0],
        ['name', 'TEXT', 1, 0],
        ['amount', 'REAL', 1, 0],
        ['flag', 'INTEGER', 1, 0],
        ['at', 'INTEGER', 1, 0],
        ['blob', 'BLOB', 1, 0],
        ['data', 'TEXT', 1, 0],
        ['other', 'TEXT', 0, 0],
        ['note', 'TEXT', 0, 0],
        ['score', 'REAL', 0, 0],
        ['ok', 'INTEGER', 0, 0],
        ['when', 'INTEGER', 0, 0],
        ['raw', 'BLOB', 0, 0],
        ['meta', 'TEXT', 0, 0],
      ],
      'columns of things',
    );
    const order = driver.all('PRAGMA index_info("__platform_order__things")').map((c) => c.name);
    assertEqual(order, ['createdAt', 'id'], 'the internal order index');
    assertEqual(indexSql(driver, 'things__byNote'), 'CREATE INDEX "things__byNote" ON "things" ("note", "createdAt", "id")', 'a declared index is named <table>__<index> and ends in (createdAt, id)');
    const fks = driver.all('PRAGMA foreign_key_list("things")').map((f) => [f.table, f.from, f.to]);
    assertEqual(fks, [['others', 'other', 'id']], 'a ref is a foreign key to the target id');
  }));

test('schema: referenced tables are created first, and the statements run once on an empty database', async (make) => {
  const tables: Tables = {
    a: { fields: { b: { type: 'ref', table: 'b' } } },
    b: { fields: { c: { type: 'ref', table: 'c', optional: true }, self: { type: 'ref', table: 'b', optional: true } } },
    c: { fields: { label: { type: 'string' } } },
  };
  const statements = schemaStatements({ tables });
  const created = statements.filter((s) => s.startsWith('CREATE TABLE')).map((s) => /CREATE TABLE "(\w+)"/.exec(s)?.[1]);
  assertEqual(created, ['c', 'b', 'a'], 'table order follows refs');
  const driver = make();
  try {
    createSchema(driver, { tables });
    const names = driver.all(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).map((r) => r.name);
    assertEqual(names, ['a', 'b', 'c'], 'tables created');
  } finally {
    driver.close();
  }
});

test('schema: defaults (quoted strings, negative numbers, booleans, ISO datetimes) apply when a field is omitted', (make) =>
  withTables(
    make,
    {
      settings: {
        fields: {
          label: { type: 'string', default: "it's \"quoted\"; DROP TABLE settings; --" },
          level: { type: 'number', default: -3.5 },
          count: { type: 'number', default: 7 },
          on: { type: 'boolean', default: true },
          off: { type: 'boolean', default: false },
          since: { type: 'datetime', default: '2024-02-29T10:00:00Z' },
          tag: { type: 'string', optional: true, default: 'none' },
        },
      },
    },
    async ({ call }) => {
      const settings = call().w('settings');
      const row = await settings.insert({});
      assertEqual(
        { label: row.label, level: row.level, count: row.count, on: row.on, off: row.off, since: row.since, tag: row.tag },
        { label: "it's \"quoted\"; DROP TABLE settings; --", level: -3.5, count: 7, on: true, off: false, since: new Date('2024-02-29T10:00:00Z'), tag: 'none' },
        'defaults',
      );
      const explicit = await settings.insert({ label: 'x', on: false, tag: undefined });
      assertEqual([explicit.label, explicit.on, explicit.tag], ['x', false, 'none'], 'given values win; undefined is omitted, so the default applies');
      const cleared = await settings.insert({ tag: null });
      assert(!('tag' in cleared), 'null on an optional field stores no value, even with a default');
    },
  ));

// --- Types ----------------------------------------------------------------------------------------

test('types: every field type is stored and read back as its JavaScript type', (make) =>
  withTables(make, TYPES, async ({ call, clock }) => {
    const { w } = call();
    const other = await w('others').insert({ label: 'o' });
    const full = {
      ...THING,
      other: other.id,
      note: 'n',
      score: 0.1 + 0.2,
      ok: false,
      when: new Date(0),
      raw: new Uint8Array(0),
      meta: ['a', 1, true, null],
    };
    const inserted = await w('things').insert(full);
    const expected = { ...full, id: inserted.id, createdAt: new Date(clock.now()), updatedAt: new Date(clock.now()) };
    assertEqual(inserted, expected, 'insert returns the row');
    const read = await call({ writable: false }).r('things').get(inserted.id);
    assertEqual(read, expected, 'get returns the same row');
    assert(read && read.at instanceof Date && read.blob instanceof Uint8Array && read.createdAt instanceof Date, 'Date and Uint8Array instances');
    assertEqual(typeof read.flag, 'boolean', 'booleans decode to booleans');
    const scalarJson = await w('things').insert({ ...THING, data: 'just a string' });
    assertEqual(scalarJson.data, 'just a string', 'a JSON string');
    const numberJson = await w('things').insert({ ...THING, data: 0 });
    assertEqual(numberJson.data, 0, 'a JSON number');
  }));

test('types: optional fields without a value are absent, whether omitted, undefined or null', (make) =>
  withTables(make, TYPES, async ({ call }) => {
    const things = call().w('things');
    const omitted = await things.insert({ ...THING });
    const undefinedValues = await things.insert({ ...THING, ...Object.fromEntries(OPTIONAL_FIELDS.map((f) => [f, undefined])) });
    const nulls = await things.insert({ ...THING, ...Object.fromEntries(OPTIONAL_FIELDS.map((f) => [f, null])) });
    const reads = call({ writable: false }).r('things');
    for (const row of [omitted, undefinedValues, nulls, ...(await reads.all())]) {
      for (const field of OPTIONAL_FIELDS) assert(!(field in row), `"${field}" should be absent from ${JSON.stringify(Object.keys(row))}`);
      assertEqual(Object.keys(row).sort(), ['amount', 'at', 'blob', 'createdAt', 'data', 'flag', 'id', 'name', 'updatedAt'], 'keys of a row without optional values');
    }
  }));

test('types: update with null or undefined removes an optional value; undefined leaves a required field unchanged; null on a required field is refused', (make) =>
  withTables(make, TYPES, async ({ call }) => {
    const things = call().w('things');
    const row = await things.insert({ ...THING, note: 'n', score: 1, meta: { a: 1 }, raw: new Uint8Array([1]) });
    const a = await things.update(row.id, { note: null, score: undefined });
    assert(!('note' in a) && !('score' in a), 'removed by null and undefined');
    assertEqual([a.meta, a.raw], [{ a: 1 }, new Uint8Array([1])], 'other optional values kept');
    const b = await things.update(row.id, { name: undefined, meta: null });
    assertEqual(b.name, 'widget', 'undefined on a required field leaves it');
    assert(!('meta' in b), 'meta removed');
    await assertRejects(things.update(row.id, { name: null }), 'Field "name" of things is required and cannot be null.');
    await assertRejects(things.insert({ ...THING, name: null }), 'Field "name" of things is required and cannot be null.');
    const again = await call({ writable: false }).r('things').get(row.id);
    assert(again && !('note' in again) && !('meta' in again) && again.name === 'widget', 'stored as updated');
  }));

test('types: a value of the wrong type is refused with a message naming the table and field', (make) =>
  withTables(make, TYPES, async ({ call }) => {
    const things = call().w('things');
    const refuse = (patch: Record<string, unknown>, message: string | RegExp) => assertRejects(things.insert({ ...THING, ...patch }), message, `insert ${show(patch)}`);
    await refuse({ name: 5 }, 'Field "name" of things must be a string.');
    await refuse({ amount: '5' }, 'Field "amount" of things must be a finite number.');
    await refuse({ amount: Number.NaN }, 'Field "amount" of things must be a finite number.');
    await refuse({ amount: Number.POSITIVE_INFINITY }, 'Field "amount" of things must be a finite number.');
    await refuse({ flag: 1 }, 'Field "flag" of things must be a boolean.');
    await refuse({ at: '2025-01-01' }, 'Field "at" of things must be a valid Date.');
    await refuse({ at: new Date(Number.NaN) }, 'Field "at" of things must be a valid Date.');
    await refuse({ at: 1735689600000 }, 'Field "at" of things must be a valid Date.');
    await refuse({ blob: [1, 2] }, 'Field "blob" of things must be a Uint8Array.');
    await refuse({ blob: new ArrayBuffer(2) }, 'Field "blob" of things must be a Uint8Array.');
    await refuse({ other: 7 }, /^Field "other" of things must be a string/);
    await refuse({ note: 3 }, 'Field "note" of things must be a string.');
    await refuse({ data: () => 1 }, 'Field "data" of things must be JSON-serializable: data is a function.');
    await refuse({ data: { when: new Date(0) } }, 'Field "data" of things must be JSON-serializable: data.when is a Date, not a plain object.');
    await refuse({ data: [1, undefined] }, 'Field "data" of things must be JSON-serializable: data[1] is undefined.');
    await refuse({ data: { n: Number.NaN } }, 'Field "data" of things must be JSON-serializable: data.n is NaN, not a finite number.');
    await refuse({ data: { big: BigInt(1) } }, 'Field "data" of things must be JSON-serializable: data.big is a bigint.');
    await refuse({ data: new Map() }, 'Field "data" of things must be JSON-serializable: data is a Map, not a plain object.');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    await refuse({ data: cycle }, 'Field "data" of things must be JSON-serializable: data.self refers back to itself.');
    const row = await things.insert({ ...THING, data: { keep: 1, drop: undefined } });
    assertEqual(row.data, { keep: 1 }, 'an undefined property inside JSON is dropped');
    await assertRejects(things.update(row.id, { amount: 'x' }), 'Field "amount" of things must be a finite number.', 'update validates too');
    await assertRejects(things.insert('not an object' as never), 'insert on things needs an object of field values.');
    await assertRejects(things.update(row.id, [] as never), 'update on things needs an object of field values.');
  }));

test('types: maxLength (in characters) and enum are enforced, in the runtime and in the DDL', (make) =>
  withTables(
    make,
    {
      posts: {
        fields: { title: { type: 'string', maxLength: 5 }, status: { type: 'string', enum: ['draft', "it's"] }, flag: { type: 'boolean', optional: true } },
        indexes: { byStatus: ['status'], byTitle: ['title'] },
      },
    },
    async ({ call, driver }) => {
      const posts = call().w('posts');
      await posts.insert({ title: '12345', status: 'draft' });
      await posts.insert({ title: '😀😀😀😀😀', status: "it's" });
      await assertRejects(posts.insert({ title: '123456', status: 'draft' }), 'Field "title" of posts must be at most 5 characters long.');
      await assertRejects(posts.insert({ title: 'a', status: 'live' }), 'Field "status" of posts must be one of "draft", "it\'s".');
      const row = await posts.insert({ title: 'a', status: 'draft' });
      await assertRejects(posts.update(row.id, { status: 'Draft' }), 'Field "status" of posts must be one of "draft", "it\'s".');
      assertEqual(await posts.find({ where: { status: 'live' } }), [], 'a filter outside the enum matches nothing (not an error)');
      assertEqual(await posts.count({ where: { title: 'far too long' } }), 0, 'a filter longer than maxLength matches nothing');
      // The DDL enforces the same rules for writes that bypass the runtime.
      const raw = (title: string, status: string, flag: number | null = null) =>
        driver.exec('INSERT INTO "posts" ("id", "createdAt", "updatedAt", "title", "status", "flag") VALUES (?, 0, 0, ?, ?, ?)', [`raw${title}${status}${flag}`, title, status, flag]);
      assertThrows(() => raw('123456', 'draft'), /CHECK constraint failed/, 'maxLength CHECK');
      assertThrows(() => raw('ok', 'live'), /CHECK constraint failed/, 'enum CHECK');
      assertThrows(() => raw('ok', 'draft', 2), /CHECK constraint failed/, 'boolean CHECK');
      raw('ok', 'draft', 1);
    },
  ));

test('types: table checks are named constraints carrying SQLite\'s message', (make) =>
  withTables(make, { ranges: { fields: { low: { type: 'number' }, high: { type: 'number' } }, checks: { ordered: 'low <= high' } } }, async ({ call }) => {
    const ranges = call().w('ranges');
    await ranges.insert({ low: 1, high: 2 });
    const error = await assertRejects(ranges.insert({ low: 3, high: 2 }), /CHECK constraint failed: ordered/);
    assert(!isRuntimeFault(error), 'a check failure is an ordinary error');
    const row = await ranges.insert({ low: 0, high: 0 });
    await assertRejects(ranges.update(row.id, { low: 5 }), /CHECK constraint failed: ordered/);
  }));

test('types: unique fields and unique groups keep SQLite\'s own message and are not reclassified', (make) =>
  withTables(
    make,
    { people: { fields: { email: { type: 'string', unique: true }, first: { type: 'string' }, last: { type: 'string' } }, unique: [['first', 'last']] } },
    async ({ call }) => {
      const people = call().w('people');
      await people.insert({ email: 'a@x', first: 'Ada', last: 'L' });
      const e1 = await assertRejects(people.insert({ email: 'a@x', first: 'B', last: 'C' }), /UNIQUE constraint failed: people\.email/);
      assert(!isRuntimeFault(e1), 'a unique field is not a unique_violation fault');
      const e2 = await assertRejects(people.insert({ email: 'b@x', first: 'Ada', last: 'L' }), /UNIQUE constraint failed: people\.first, people\.last/);
      assert(!isRuntimeFault(e2), 'a unique group is not a unique_violation fault');
      await people.insert({ email: 'c@x', first: 'Ada', last: 'M' });
    },
  ));

test('types: generated fields (virtual and stored) are computed, readable and not writable', (make) =>
  withTables(
    make,
    {
      words: {
        fields: {
          text: { type: 'string' },
          lower: { type: 'string', generated: { expression: 'lower("text")' } },
          size: { type: 'number', generated: { expression: 'length("text")', stored: true } },
        },
        indexes: { byLower: ['lower'] },
      },
    },
    async ({ call, driver }) => {
      const words = call().w('words');
      const row = await words.insert({ text: 'HeLLo' });
      assertEqual([row.lower, row.size], ['hello', 5], 'generated values on insert');
      const updated = await words.update(row.id, { text: 'Bye' });
      assertEqual([updated.lower, updated.size], ['bye', 3], 'generated values follow updates');
      assertEqual(ids(await words.find({ where: { lower: 'bye' } })), [row.id], 'a generated field can be filtered through its index');
      await assertRejects(words.insert({ text: 'x', lower: 'x' }), 'Field "lower" of words is generated and cannot be written.');
      await assertRejects(words.update(row.id, { size: 1 }), 'Field "size" of words is generated and cannot be written.');
      const info = driver.all('PRAGMA table_xinfo("words")').map((c) => [c.name, c.hidden]);
      assertEqual(info.slice(3), [['text', 0], ['lower', 2], ['size', 3]], 'virtual (hidden 2) and stored (hidden 3) columns');
    },
  ));

test('types: a ref must name an existing row; onDelete cascade, setNull and restrict behave as declared', (make) =>
  withTables(
    make,
    {
      lists: { fields: { name: { type: 'string' } } },
      cards: { fields: { list: { type: 'ref', table: 'lists', onDelete: 'cascade' }, title: { type: 'string' } }, indexes: { byList: ['list'] } },
      pins: { fields: { list: { type: 'ref', table: 'lists', optional: true, onDelete: 'setNull' }, card: { type: 'ref', table: 'cards', optional: true, onDelete: 'cascade' } } },
      locks: { fields: { list: { type: 'ref', table: 'lists', onDelete: 'restrict' } } },
    },
    async ({ call, written }) => {
      const { w } = call();
      const list = await w('lists').insert({ name: 'L' });
      const card = await w('cards').insert({ list: list.id, title: 'c' });
      const pin = await w('pins').insert({ list: list.id });
      const cardPin = await w('pins').insert({ card: card.id });
      await assertRejects(w('cards').insert({ list: 'missing', title: 'x' }), /FOREIGN KEY constraint failed/, 'a ref to a missing row');

      const locked = await w('lists').insert({ name: 'locked' });
      const lock = await w('locks').insert({ list: locked.id });
      await assertRejects(w('lists').delete(locked.id), /FOREIGN KEY constraint failed/, 'restrict refuses the delete');
      await w('locks').delete(lock.id);
      await w('lists').delete(locked.id);

      written.length = 0;
      await w('lists').delete(list.id);
      const r = call({ writable: false });
      assertEqual(await r.r('cards').get(card.id), null, 'cascade deleted the card');
      assertEqual(await r.r('pins').get(cardPin.id), null, 'cascade through a cascade deleted its pin');
      const cleared = await r.r('pins').get(pin.id);
      assert(cleared && !('list' in cleared), 'setNull cleared the ref (absent)');
      assertEqual([...new Set(written)].sort(), ['cards', 'lists', 'pins'], 'onWrite names the tables a cascade changed');
    },
  ));

test('indexes: unique, partial, expression, descending and nocase indexes are created and enforced', (make) =>
  withTables(
    make,
    {
      users: {
        fields: { email: { type: 'string' }, slug: { type: 'string' }, archived: { type: 'boolean' }, rank: { type: 'number' } },
        indexes: {
          byEmail: { columns: [{ column: 'email', collate: 'nocase' }], unique: true },
          bySlug: { columns: ['slug'], unique: true, where: 'archived = 0' },
          byLower: { columns: [{ expression: 'lower(slug)', desc: true }] },
          byRank: { columns: [{ column: 'rank', desc: true }, 'slug'] },
        },
      },
    },
    async ({ call, driver }) => {
      const users = call().w('users');
      await users.insert({ email: 'Ada@X.org', slug: 'ada', archived: false, rank: 1 });
      await assertRejects(users.insert({ email: 'ada@x.ORG', slug: 'other', archived: false, rank: 1 }), /UNIQUE constraint failed/, 'nocase unique index');
      await assertRejects(users.insert({ email: 'b@x', slug: 'ada', archived: false, rank: 1 }), /UNIQUE constraint failed/, 'partial unique index');
      await users.insert({ email: 'c@x', slug: 'ada', archived: true, rank: 1 });
      await users.insert({ email: 'd@x', slug: 'ada', archived: true, rank: 1 });
      assertEqual(
        indexSql(driver, 'users__byEmail'),
        'CREATE UNIQUE INDEX "users__byEmail" ON "users" ("email" COLLATE NOCASE)',
        'unique nocase index',
      );
      assertEqual(indexSql(driver, 'users__bySlug'), 'CREATE UNIQUE INDEX "users__bySlug" ON "users" ("slug") WHERE archived = 0', 'partial index');
      assertEqual(indexSql(driver, 'users__byLower'), 'CREATE INDEX "users__byLower" ON "users" ((lower(slug)) DESC, "createdAt", "id")', 'expression index (then the order columns)');
      const rank = driver.all('PRAGMA index_xinfo("users__byRank")').filter((c) => Number(c.key) === 1).map((c) => [c.name, c.desc]);
      assertEqual(rank, [['rank', 1], ['slug', 0], ['createdAt', 0], ['id', 0]], 'descending column, then the order columns');
      assertEqual(ids(await users.find({ where: { rank: 1 } })).length, 3, 'the leading column of a descending index filters');
    },
  ));

// --- Ids and timestamps ---------------------------------------------------------------------------

test('ids: the runtime mints 26-character base32 ids and sets createdAt = updatedAt = now', (make) =>
  withTables(make, ITEMS, async ({ call, clock }) => {
    const items = call().w('items');
    const a = await items.insert({ group: 'g', n: 1 });
    clock.advance(1234);
    const b = await items.insert({ group: 'g', n: 2 });
    for (const row of [a, b]) assert(/^[a-z2-7]{26}$/.test(row.id), `minted id ${row.id}`);
    assert(a.id !== b.id, 'distinct ids');
    assertEqual([a.createdAt, a.updatedAt], [new Date(START), new Date(START)], 'timestamps of a');
    assertEqual([b.createdAt, b.updatedAt], [new Date(START + 1234), new Date(START + 1234)], 'timestamps of b');
  }));

test('ids: insert refuses id on a runtime-id table, createdAt, updatedAt, unknown fields and missing required fields', (make) =>
  withTables(make, TODOS, async ({ call }) => {
    const todos = call().w('todos');
    const base = { list: 'l', done: false, title: 't' };
    await assertRejects(todos.insert({ ...base, id: 'mine' }), 'Field "id" of todos is minted by the runtime; remove it from the insert.');
    await assertRejects(todos.insert({ ...base, createdAt: new Date() }), 'Field "createdAt" of todos is set by the runtime and cannot be written.');
    await assertRejects(todos.insert({ ...base, updatedAt: new Date() }), 'Field "updatedAt" of todos is set by the runtime and cannot be written.');
    await assertRejects(todos.insert({ list: 'l', done: false, titel: 't' }), 'Unknown field "titel" for table todos. Did you mean "title"?');
    await assertRejects(todos.insert({ ...base, zzzzzz: 1 }), 'Unknown field "zzzzzz" for table todos.');
    await assertRejects(todos.insert({ list: 'l', done: false }), 'Missing required field "title" for table todos.');
    await assertRejects(todos.insert({ list: 'l', done: false, title: undefined }), 'Missing required field "title" for table todos.');
    const row = await todos.insert({ ...base, id: undefined, createdAt: undefined });
    await assertRejects(todos.update(row.id, { createdAt: new Date(0) }), 'Field "createdAt" of todos is set by the runtime and cannot be written.');
    await assertRejects(todos.update(row.id, { titel: 'x' }), 'Unknown field "titel" for table todos. Did you mean "title"?');
    assertEqual((await call({ writable: false }).r('todos').all()).length, 1, 'nothing else was written');
  }));

test('ids: idSource application requires an id, stores it, and a taken id is a 409 unique_violation', (make) =>
  withTables(make, TAGS, async ({ call }) => {
    const tags = call().w('tags');
    const row = await tags.insert({ id: 'red', label: 'Red' });
    assertEqual(row.id, 'red', 'the application id is kept');
    await assertRejects(tags.insert({ label: 'Blue' }), 'Missing required field "id" for table tags.');
    await assertRejects(tags.insert({ id: 5, label: 'Blue' }), 'Field "id" of tags must be a non-empty string.');
    const error = await assertRejects(tags.insert({ id: 'red', label: 'Other' }), 'Record tags/red already exists.');
    assert(isRuntimeFault(error), 'a runtime fault');
    assertEqual([error.code, error.status], ['unique_violation', 409], 'code and status');
    const own = await assertRejects(tags.insert({ id: 'green', label: 'Red' }), /UNIQUE constraint failed: tags\.label/);
    assert(!isRuntimeFault(own), 'a unique on the application\'s own column stays an ordinary error');
    await assertRejects(tags.update('red', { id: 'blue' } as never), 'update on tags does not accept "id": a row\'s id never changes.');
  }));

// --- Writes ---------------------------------------------------------------------------------------

test('update: merges shallowly over the current row, sets updatedAt and never accepts id', (make) =>
  withTables(make, TYPES, async ({ call, clock }) => {
    const things = call().w('things');
    const row = await things.insert({ ...THING, meta: { a: 1, b: { c: 2 } } });
    clock.advance(5000);
    const updated = await things.update(row.id, { name: 'renamed', meta: { b: { d: 3 } } });
    assertEqual(updated, { ...row, name: 'renamed', meta: { b: { d: 3 } }, updatedAt: new Date(START + 5000) }, 'merged row');
    assertEqual(await call({ writable: false }).r('things').get(row.id), updated, 'stored');
    await assertRejects(things.update(row.id, { id: row.id }), 'update on things does not accept "id": a row\'s id never changes.');
    clock.advance(-60_000);
    const later = await things.update(row.id, { amount: 1 });
    assertEqual(later.updatedAt, new Date(START + 5000), 'updatedAt never goes backwards');
    assert(later.updatedAt.getTime() >= later.createdAt.getTime(), 'updatedAt ≥ createdAt');
  }));

test('update/delete/get: a missing id is Record not found (get answers null)', (make) =>
  withTables(make, ITEMS, async ({ call }) => {
    const items = call().w('items');
    await assertRejects(items.update('nope', { n: 1 }), 'Record not found: items/nope');
    await assertRejects(items.delete('nope'), 'Record not found: items/nope');
    assertEqual(await items.get('nope'), null, 'get of a missing id');
    const row = await items.insert({ group: 'g', n: 1 });
    await items.delete(row.id);
    assertEqual(await items.get(row.id), null, 'deleted');
    await assertRejects(items.delete(row.id), `Record not found: items/${row.id}`);
    await assertRejects(items.get(5 as never), 'get on items needs a string id.');
  }));

test('writes: onWrite is called with the table after each successful write, never after a refused one', (make) =>
  withTables(make, ITEMS, async ({ call, written }) => {
    const { w } = call();
    const row = await w('items').insert({ group: 'g', n: 1 });
    await w('items').update(row.id, { n: 2 });
    await w('extras').insert({ group: 'g', n: 1 });
    await assertRejects(w('items').update('missing', { n: 1 }), 'Record not found: items/missing');
    await w('items').delete(row.id);
    assertEqual(written, ['items', 'items', 'extras', 'items'], 'onWrite calls');
  }));

test('writes: reads see the call\'s own uncommitted writes, and a rollback discards them', (make) =>
  withTables(make, ITEMS, async ({ call, driver }) => {
    const rollback = new Error('rollback');
    const rolledBack = await driver.transaction(async () => {
      const items = call().w('items');
      const row = await items.insert({ group: 'g', n: 1 });
      assertEqual(ids(await items.find({ where: { group: 'g' } })), [row.id], 'own insert visible');
      await items.update(row.id, { n: 2 });
      assertEqual((await items.get(row.id))?.n, 2, 'own update visible');
      throw rollback;
    }).catch((error: unknown) => error);
    assertEqual(rolledBack === rollback, true, 'the transaction rolled back');
    assertEqual(await call().r('items').all(), [], 'rolled back');
  }));

// --- Filters --------------------------------------------------------------------------------------

test('where: { id } and every leading prefix of a declared index are accepted, in any key order', (make) =>
  withTables(make, TODOS, async ({ call, clock }) => {
    const todos = call().w('todos');
    const a = await todos.insert({ list: 'home', done: false, title: 'Milk', priority: 1, due: new Date(START) });
    clock.advance(10);
    const b = await todos.insert({ list: 'home', done: true, title: 'eggs' });
    clock.advance(10);
    const c = await todos.insert({ list: 'work', done: false, title: 'milk', priority: 1 });
    const r = call({ writable: false }).r('todos');
    assertEqual(ids(await r.find({ where: { id: b.id } })), [b.id], '{ id }');
    assertEqual(ids(await r.find({ where: { list: 'home' } })), [a.id, b.id], '{ list }');
    assertEqual(ids(await r.find({ where: { list: 'home', done: false } })), [a.id], '{ list, done }');
    assertEqual(ids(await r.find({ where: { done: true, list: 'home' } })), [b.id], 'key order does not matter');
    assertEqual(ids(await r.find({ where: { list: 'home', done: false, title: 'Milk' } })), [a.id], 'the whole index');
    assertEqual(ids(await r.find({ where: { title: 'milk' } })), [c.id], '{ title } compares with the field\'s own collation');
    assertEqual(ids(await r.find({ where: { due: new Date(START) } })), [a.id], 'a datetime filter takes a Date');
    assertEqual(ids(await r.find({ where: { due: null } })), [b.id, c.id], 'null matches rows where the optional field is absent');
    assertEqual(ids(await r.find({ where: { due: undefined } })), [b.id, c.id], 'undefined is like null');
    assertEqual(ids(await r.find({ where: { list: 'nowhere' } })), [], 'no match');
    await assertRejects(r.find({ where: { list: 5 } }), 'Field "list" of todos must be a string.', 'filter values are typed like the fields');
    await assertRejects(r.find({ where: { due: '2026-01-01' } }), 'Field "due" of todos must be a valid Date.');
    await assertRejects(r.find({ where: { id: 5 } }), 'Field "id" of todos must be a string.');
  }));

test('where: anything but { id } or a declared index prefix is refused', (make) =>
  withTables(make, TODOS, async ({ call }) => {
    const todos = call().w('todos');
    await todos.insert({ list: 'home', done: false, title: 'Milk', priority: 1 });
    const refused = 'Filter on todos must match the prefix of a declared index.';
    const bad: unknown[] = [
      {},
      { done: false },
      { list: 'home', title: 'Milk' },
      { done: false, title: 'Milk' },
      { id: 'x', list: 'home' },
      { priority: 1 },
      { nonsense: 1 },
      { createdAt: new Date() },
      undefined,
      null,
      'list',
      ['list'],
    ];
    for (const where of bad) {
      await assertRejects(todos.find({ where } as never), refused, `find ${show(where)}`);
      await assertRejects(todos.first({ where } as never), refused, `first ${show(where)}`);
      await assertRejects(todos.page({ where } as never), refused, `page ${show(where)}`);
      await assertRejects(todos.count({ where } as never), refused, `count ${show(where)}`);
    }
    await assertRejects(todos.find(undefined as never), refused, 'no options at all');
    await assertRejects(todos.find({ where: { list: 'home' }, orderBy: 'title' } as never), 'Unknown option "orderBy" for find on todos. Results are always ordered by createdAt, then id.');
    await assertRejects(todos.first({ where: { list: 'home' }, limit: 1 } as never), 'Unknown option "limit" for first on todos. Options: where.');
  }));

// --- Order ----------------------------------------------------------------------------------------

test('order: rows come by createdAt, then id, ascending, in every read', (make) =>
  withTables(make, { tags: { idSource: 'application', fields: { group: { type: 'string' } }, indexes: { byGroup: ['group'] } } }, async ({ call, clock }) => {
    const tags = call().w('tags');
    clock.advance(10_000);
    await tags.insert({ id: 'm', group: 'g' });
    await tags.insert({ id: 'z', group: 'g' });
    clock.advance(-5_000);
    await tags.insert({ id: 'y', group: 'g' });
    clock.advance(5_000);
    await tags.insert({ id: 'a', group: 'g' });
    clock.advance(1);
    await tags.insert({ id: 'b', group: 'g' });
    const expected = ['y', 'a', 'm', 'z', 'b'];
    const r = call({ writable: false }).r('tags');
    assertEqual(ids(await r.all()), expected, 'all');
    assertEqual(ids(await r.find({ where: { group: 'g' } })), expected, 'find');
    assertEqual((await r.first({ where: { group: 'g' } }))?.id, 'y', 'first');
    assertEqual(ids((await walk(r, { group: 'g' }, 2)).rows), expected, 'page');
    assertEqual(ids(await r.find({ where: { group: 'g' }, limit: 2 })), ['y', 'a'], 'a limit takes the first rows in order');
  }));

// --- find / first / all ---------------------------------------------------------------------------

test('find: the default limit is 100 or queryRows, whichever is lower; a limit must be an integer from 1 to queryRows', (make) =>
  withTables(make, ITEMS, async ({ call, clock }) => {
    await insertMany(call().w('items'), clock, 105, (i) => ({ group: 'g', n: i }), 1);
    assertEqual((await call().r('items').find({ where: { group: 'g' } })).length, 100, 'default 100');
    assertEqual((await call().r('items').find({ where: { group: 'g' }, limit: 105 })).length, 105, 'an explicit limit above 100');
    assertEqual((await call({ limits: { queryRows: 7 } }).r('items').find({ where: { group: 'g' } })).length, 7, 'default queryRows when lower');
    const small = call({ limits: { queryRows: 7 } }).r('items');
    for (const limit of [0, -1, 1.5, 8, Number.NaN, '3', null]) {
      await assertRejects(small.find({ where: { group: 'g' }, limit } as never), 'limit must be an integer from 1 to 7.', `limit ${show(limit)}`);
    }
    assertEqual((await small.find({ where: { group: 'g' }, limit: 7 })).length, 7, 'limit = queryRows is allowed');
  }));

test('first: the first row in order, or null', (make) =>
  withTables(make, ITEMS, async ({ call, clock }) => {
    const rows = await insertMany(call().w('items'), clock, 3, (i) => ({ group: i === 0 ? 'x' : 'g', n: i }));
    const r = call({ writable: false }).r('items');
    assertEqual((await r.first({ where: { group: 'g' } }))?.id, rows[1]?.id, 'first of g');
    assertEqual(await r.first({ where: { group: 'none' } }), null, 'no match');
  }));

test('all: every row in order, refused (not truncated) beyond queryRows', (make) =>
  withTables(make, ITEMS, async ({ call, clock }) => {
    const rows = await insertMany(call().w('items'), clock, 5, (i) => ({ group: 'g', n: i }));
    assertEqual(ids(await call({ limits: { queryRows: 5 } }).r('items').all()), ids(rows), 'exactly queryRows rows');
    await call().w('items').insert({ group: 'g', n: 5 });
    await assertRejects(call({ limits: { queryRows: 5 } }).r('items').all(), 'all on items reads more than 5 rows; read it with page().');
    assertEqual(await call().r('extras').all(), [], 'an empty table');
  }));

// --- page -----------------------------------------------------------------------------------------

test('page: walks every row once; cursor is null exactly when no row follows', (make) =>
  withTables(make, ITEMS, async ({ call, clock }) => {
    const rows = await insertMany(call().w('items'), clock, 7, (i) => ({ group: 'g', n: i }));
    const r = call().r('items');
    const walked = await walk(r, { group: 'g' }, 3);
    assertEqual(ids(walked.rows), ids(rows), 'every row once, in order');
    assertEqual(walked.pages, [3, 3, 1], 'page sizes');
    const exact = await walk(call().r('items'), { group: 'g' }, 7);
    assertEqual(exact.pages, [7], 'a full last page has a null cursor');
    const first = await call().r('items').page({ where: { group: 'g' }, limit: 6 });
    assert(first.cursor !== null && first.rows.length === 6, 'a page of exactly limit rows with more to come has a cursor');
    const none = await call().r('items').page({ where: { group: 'none' } });
    assertEqual(none, { rows: [], cursor: null }, 'no rows');
    const everything = await call().r('items').page({ where: { group: 'g' } });
    assertEqual([everything.rows.length, everything.cursor], [7, null], 'default limit');
  }));

test('page: no duplicates and no skips while writes land between pages', (make) =>
  withTables(make, ITEMS, async ({ call, clock }) => {
    const initial = await insertMany(call().w('items'), clock, 5, (i) => ({ group: 'g', n: i }));
    const seen: TableRow[] = [];
    let page = await call().r('items').page({ where: { group: 'g' }, limit: 2 });
    seen.push(...page.rows);
    // Between pages: two inserts (later createdAt), an update of a row already read, a delete of a row not yet read.
    const added = await insertMany(call().w('items'), clock, 2, (i) => ({ group: 'g', n: 100 + i }));
    await call().w('items').insert({ group: 'other', n: 0 });
    await call().w('items').update(initial[0]!.id, { n: 42 });
    await call().w('items').delete(initial[3]!.id);
    while (page.cursor !== null) {
      page = await call().r('items').page({ where: { group: 'g' }, limit: 2, cursor: page.cursor });
      seen.push(...page.rows);
      if (page.cursor !== null) await call().w('items').insert({ group: 'g', n: 200 + seen.length });
      clock.advance(1000);
    }
    const expected = ids(await call().r('items').find({ where: { group: 'g' } }));
    assertEqual(ids(seen), expected, 'every current row once, in order');
    assertEqual(new Set(ids(seen)).size, seen.length, 'no duplicates');
    assert(ids(seen).includes(added[0]!.id) && ids(seen).includes(added[1]!.id), 'rows inserted after the cursor appear');
    assert(!ids(seen).includes(initial[3]!.id), 'a row deleted before it was reached does not appear');
  }));

test('page: a cursor that was forged, edited, issued for another table or filter, or is not a string is refused', (make) =>
  withTables(make, ITEMS, async ({ call, clock }) => {
    await insertMany(call().w('items'), clock, 4, (i) => ({ group: i % 2 ? 'b' : 'a', n: i }));
    await insertMany(call().w('extras'), clock, 4, (i) => ({ group: 'a', n: i }));
    const items = call().r('items');
    const { cursor } = await items.page({ where: { group: 'a' }, limit: 1 });
    assert(typeof cursor === 'string', 'a cursor');
    const again = await items.page({ where: { group: 'a' }, limit: 1, cursor });
    assertEqual(again.rows.length, 1, 'the cursor as issued works');
    const invalid = 'Invalid cursor for items: pass back a cursor exactly as page() returned it.';
    const position = 10;
    const flipped = cursor.slice(0, position) + (cursor[position] === 'A' ? 'B' : 'A') + cursor.slice(position + 1);
    const tail = cursor.slice(0, -1) + (cursor.endsWith('A') ? 'B' : 'A');
    for (const bad of ['', 'garbage', 'eyJjcmVhdGVkQXQiOjAsImlkIjoieCJ9', flipped, tail, `${cursor}x`, null, 42, {}, ['a']]) {
      await assertRejects(items.page({ where: { group: 'a' }, cursor: bad } as never), invalid, `cursor ${show(bad)}`);
    }
    await assertRejects(items.page({ where: { group: 'b' }, cursor }), invalid, 'a cursor for another filter');
    const extras = call().r('extras');
    const { cursor: extrasCursor } = await extras.page({ where: { group: 'a' }, limit: 1 });
    await assertRejects(items.page({ where: { group: 'a' }, cursor: extrasCursor! }), invalid, 'a cursor for another table');
    const foreign = new CursorSigner(new Uint8Array(32).fill(9)).sign(`platform.table.page.v0\nitems\n[["group","a"]]`, { createdAt: 0, id: 'x' });
    await assertRejects(items.page({ where: { group: 'a' }, cursor: foreign }), invalid, 'a cursor signed with another secret');
    await assertRejects(
      extras.page({ where: { group: 'a' }, cursor: cursor }),
      'Invalid cursor for extras: pass back a cursor exactly as page() returned it.',
      'the message names the table',
    );
  }));

test('page: charges rows + 1, so a limit equal to the whole budget is refused', (make) =>
  withTables(make, ITEMS, async ({ call, clock }) => {
    await insertMany(call().w('items'), clock, 6, (i) => ({ group: 'g', n: i }));
    const c = call({ limits: { queryRows: 5 } });
    await assertRejects(c.r('items').page({ where: { group: 'g' }, limit: 5 }), 'limit must be an integer from 1 to 4.');
    await assertRejects(c.r('items').page({ where: { group: 'g' }, limit: 0 }), 'limit must be an integer from 1 to 4.');
    const page = await c.r('items').page({ where: { group: 'g' }, limit: 4 });
    assertEqual([page.rows.length, page.cursor !== null, c.meter.rowsRead], [4, true, 5], 'four rows cost five');
    const d = call({ limits: { queryRows: 5 } });
    const defaulted = await d.r('items').page({ where: { group: 'g' } });
    assertEqual([defaulted.rows.length, d.meter.rowsRead], [4, 5], 'the default limit is the page maximum when lower than 100');
  }));

// --- count ----------------------------------------------------------------------------------------

test('count: exact, refused past queryRows, saturating with a limit; always charges one row', (make) =>
  withTables(make, ITEMS, async ({ call, clock }) => {
    await insertMany(call().w('items'), clock, 3, (i) => ({ group: 'g', n: i }));
    const c = call({ limits: { queryRows: 5 } });
    const items = c.r('items');
    assertEqual(await items.count({ where: { group: 'g' } }), 3, 'exact');
    assertEqual(c.meter.rowsRead, 1, 'one row charged');
    assertEqual(await items.count({ where: { group: 'none' } }), 0, 'zero');
    assertEqual(await items.count({ where: { group: 'g' }, limit: 2 }), 2, 'saturates at the limit');
    assertEqual(await items.count({ where: { group: 'g' }, limit: 1 }), 1, 'limit 1 is an existence check');
    assertEqual(await items.count({ where: { group: 'none' }, limit: 1 }), 0, 'existence check on nothing');
    assertEqual(c.meter.rowsRead, 5, 'one row per count');
    await insertMany(call().w('items'), clock, 3, (i) => ({ group: 'g', n: i }));
    const d = call({ limits: { queryRows: 5 } });
    const error = await assertRejects(d.r('items').count({ where: { group: 'g' } }), /^count on items matches more than 5 rows/);
    assertEqual(error.message, 'count on items matches more than 5 rows; pass a limit to cap the count.', 'full message');
    assertEqual(await d.r('items').count({ where: { group: 'g' }, limit: 5 }), 5, 'capped');
    for (const limit of [0, 6, 2.5, '1']) {
      await assertRejects(d.r('items').count({ where: { group: 'g' }, limit } as never), 'limit must be an integer from 1 to 5.', `count limit ${show(limit)}`);
    }
  }));

// --- Budgets --------------------------------------------------------------------------------------

test('budget: each read charges exactly what it returns (page + 1, count 1, get only when found)', (make) =>
  withTables(make, ITEMS, async ({ call, clock }) => {
    const rows = await insertMany(call().w('items'), clock, 6, (i) => ({ group: i < 4 ? 'g' : 'h', n: i }));
    const c = call();
    const r = c.r('items');
    const charged = async (run: () => Promise<unknown>, expected: number, label: string) => {
      const before = c.meter.rowsRead;
      await run();
      assertEqual(c.meter.rowsRead - before, expected, label);
    };
    await charged(() => r.get(rows[0]!.id), 1, 'get found');
    await charged(() => r.get('missing'), 0, 'get missing');
    await charged(() => r.first({ where: { group: 'g' } }), 1, 'first found');
    await charged(() => r.first({ where: { group: 'none' } }), 0, 'first missing');
    await charged(() => r.find({ where: { group: 'g' } }), 4, 'find');
    await charged(() => r.find({ where: { group: 'g' }, limit: 2 }), 2, 'find with limit');
    await charged(() => r.all(), 6, 'all');
    await charged(() => r.page({ where: { group: 'g' }, limit: 3 }), 4, 'page of 3 with more');
    await charged(() => r.page({ where: { group: 'h' }, limit: 3 }), 3, 'last page of 2');
    await charged(() => r.page({ where: { group: 'none' } }), 1, 'empty page');
    await charged(() => r.count({ where: { group: 'g' } }), 1, 'count');
    const w = c.w('items');
    await charged(() => w.insert({ group: 'g', n: 9 }), 0, 'a write returns its row without charging reads');
    assertEqual(c.meter.rowsWritten, 1, 'one write');
  }));

test('budget: a read that would pass queryRows is refused', (make) =>
  withTables(make, ITEMS, async ({ call, clock }) => {
    const rows = await insertMany(call().w('items'), clock, 8, (i) => ({ group: 'g', n: i }));
    const exceeded = 'Query row budget exceeded: this call may read at most 5 rows.';
    const a = call({ limits: { queryRows: 5 } });
    assertEqual((await a.r('items').find({ where: { group: 'g' }, limit: 3 })).length, 3, 'three read');
    await assertRejects(a.r('items').find({ where: { group: 'g' }, limit: 3 }), exceeded, 'three more');
    assertEqual((await a.r('items').find({ where: { group: 'g' }, limit: 2 })).length, 2, 'two more fit');
    await assertRejects(a.r('items').get(rows[0]!.id), exceeded, 'get');
    await assertRejects(a.r('items').first({ where: { group: 'g' } }), exceeded, 'first');
    await assertRejects(a.r('items').count({ where: { group: 'g' }, limit: 1 }), exceeded, 'count');
    await assertRejects(a.r('items').page({ where: { group: 'none' } }), exceeded, 'page');
    await assertRejects(a.r('items').all(), 'all on items reads more than 5 rows; read it with page().', 'all on a table larger than the budget');
    assertEqual(await a.r('items').get('missing'), null, 'a get that finds nothing costs nothing');
    assertEqual(a.meter.rowsRead, 5, 'never charged past the budget');
    const b = call({ limits: { queryRows: 5 } });
    await b.r('items').find({ where: { group: 'g' }, limit: 4 });
    await assertRejects(b.r('items').page({ where: { group: 'g' }, limit: 1 }), exceeded, 'page needs rows + 1');
    await insertMany(call().w('extras'), clock, 3, (i) => ({ group: 'g', n: i }));
    const c = call({ limits: { queryRows: 5 } });
    await c.r('items').find({ where: { group: 'g' }, limit: 4 });
    await assertRejects(c.r('extras').all(), exceeded, 'all on a small table with too little budget left');
    assertEqual(c.meter.rowsRead, 4, 'nothing charged by a refused read');
  }));

test('budget: each insert, update and delete charges one write; past mutationWrites they are refused', (make) =>
  withTables(make, ITEMS, async ({ call }) => {
    const c = call({ limits: { mutationWrites: 3 } });
    const items = c.w('items');
    const a = await items.insert({ group: 'g', n: 1 });
    await items.update(a.id, { n: 2 });
    await items.delete(a.id);
    assertEqual(c.meter.rowsWritten, 3, 'three writes');
    const exceeded = 'Mutation write budget exceeded: this call may write at most 3 rows.';
    await assertRejects(items.insert({ group: 'g', n: 1 }), exceeded, 'insert');
    await assertRejects(items.update(a.id, { n: 1 }), exceeded, 'update');
    await assertRejects(items.delete(a.id), exceeded, 'delete');
    assertEqual(c.meter.rowsWritten, 3, 'refused writes are not charged');
    assertEqual(await call().r('items').all(), [], 'nothing written past the budget');
  }));

// --- Policies -------------------------------------------------------------------------------------

test('ownedTable: insert stamps the caller as owner, replacing a given value', (make) =>
  withTables(make, POLICY, async ({ call }) => {
    const notes = call({ policies: ALICE }).w('notes');
    const a = await notes.insert({ text: 'mine' });
    const b = await notes.insert({ text: 'forged', ownerId: 'mallory' });
    assertEqual([a.ownerId, b.ownerId], ['alice', 'alice'], 'stamped');
    const raw = await call().r('notes').all();
    assertEqual(raw.map((row) => row.ownerId), ['alice', 'alice'], 'stored');
  }));

test('ownedTable: every read sees only the caller\'s rows', (make) =>
  withTables(make, POLICY, async ({ call, clock }) => {
    const a1 = await call({ policies: ALICE }).w('notes').insert({ text: 'shared' });
    clock.advance(1);
    const b1 = await call({ policies: BOB }).w('notes').insert({ text: 'shared' });
    clock.advance(1);
    const a2 = await call({ policies: ALICE }).w('notes').insert({ text: 'other' });
    const alice = call({ policies: ALICE, writable: false }).r('notes');
    assertEqual(ids(await alice.all()), [a1.id, a2.id], 'all');
    assertEqual(ids(await alice.find({ where: { text: 'shared' } })), [a1.id], 'find');
    assertEqual((await alice.first({ where: { text: 'shared' } }))?.id, a1.id, 'first');
    assertEqual(await alice.count({ where: { text: 'shared' } }), 1, 'count');
    assertEqual(ids((await walk(alice, { text: 'shared' }, 1)).rows), [a1.id], 'page');
    assertEqual(await alice.get(b1.id), null, 'get of another user\'s row');
    assertEqual(ids(await alice.find({ where: { ownerId: 'bob' } })), [], 'filtering on another owner finds nothing');
    assertEqual(ids(await alice.find({ where: { id: b1.id } })), [], '{ id } of another user\'s row');
    const bob = call({ policies: BOB, writable: false }).r('notes');
    assertEqual(ids(await bob.all()), [b1.id], 'bob sees his own');
  }));

test('ownedTable: another user\'s row is not found on update and delete; ownerId cannot be updated', (make) =>
  withTables(make, POLICY, async ({ call }) => {
    const row = await call({ policies: ALICE }).w('notes').insert({ text: 'mine' });
    const bob = call({ policies: BOB }).w('notes');
    await assertRejects(bob.update(row.id, { text: 'stolen' }), `Record not found: notes/${row.id}`);
    await assertRejects(bob.delete(row.id), `Record not found: notes/${row.id}`);
    await assertRejects(bob.update('missing', { text: 'x' }), 'Record not found: notes/missing', 'indistinguishable from a missing id');
    const alice = call({ policies: ALICE }).w('notes');
    await assertRejects(alice.update(row.id, { ownerId: 'bob' }), 'ownerId is managed by the ownedTable policy.');
    await assertRejects(bob.update(row.id, { ownerId: 'bob' }), 'ownerId is managed by the ownedTable policy.', 'refused before the lookup');
    assertEqual((await alice.update(row.id, { text: 'edited' })).text, 'edited', 'the owner can update');
    assertEqual((await call().r('notes').get(row.id))?.text, 'edited', 'bob changed nothing');
    await alice.delete(row.id);
  }));

test('workspaceTable: reads see only the caller\'s workspaces; no membership sees nothing', (make) =>
  withTables(make, POLICY, async ({ call, clock }) => {
    const w1 = await call({ policies: member('w1') }).w('docs').insert({ workspaceId: 'w1', title: 't' });
    clock.advance(1);
    const w2 = await call({ policies: member('w2') }).w('docs').insert({ workspaceId: 'w2', title: 't' });
    const both = call({ policies: member('w1', 'w2'), writable: false }).r('docs');
    assertEqual(ids(await both.all()), [w1.id, w2.id], 'both workspaces');
    const one = call({ policies: member('w1'), writable: false }).r('docs');
    assertEqual(ids(await one.find({ where: { title: 't' } })), [w1.id], 'find');
    assertEqual(ids(await one.find({ where: { workspaceId: 'w2' } })), [], 'a foreign workspace filters to nothing');
    assertEqual(await one.get(w2.id), null, 'get');
    assertEqual(await one.count({ where: { title: 't' } }), 1, 'count');
    const none = call({ policies: member(), writable: false }).r('docs');
    assertEqual([await none.all(), await none.count({ where: { title: 't' } }), await none.get(w1.id)], [[], 0, null], 'empty membership');
  }));

test('workspaceTable: inserting or moving into a foreign workspace is refused; rows outside are not found', (make) =>
  withTables(make, POLICY, async ({ call }) => {
    const docs = call({ policies: member('w1', 'w2') }).w('docs');
    await assertRejects(docs.insert({ workspaceId: 'w3', title: 't' }), 'Workspace "w3" is not one of the caller\'s workspaces.');
    const row = await docs.insert({ workspaceId: 'w1', title: 't' });
    const moved = await docs.update(row.id, { workspaceId: 'w2' });
    assertEqual(moved.workspaceId, 'w2', 'moved between member workspaces');
    await assertRejects(docs.update(row.id, { workspaceId: 'w3' }), 'Workspace "w3" is not one of the caller\'s workspaces.');
    await assertRejects(docs.update(row.id, { workspaceId: null }), 'Field "workspaceId" of docs is required and cannot be null.');
    const outsider = call({ policies: member('w1') }).w('docs');
    await assertRejects(outsider.update(row.id, { title: 'x' }), `Record not found: docs/${row.id}`);
    await assertRejects(outsider.delete(row.id), `Record not found: docs/${row.id}`);
    await assertRejects(call({ policies: member() }).w('docs').insert({ workspaceId: 'w1', title: 't' }), 'Workspace "w1" is not one of the caller\'s workspaces.');
    assertEqual((await call().r('docs').get(row.id))?.workspaceId, 'w2', 'unchanged by refused writes');
  }));

test('policies: a policy on a table without its field is refused; tables without a policy are unfiltered', (make) =>
  withTables(make, POLICY, async ({ call }) => {
    const c = call({ policies: { loose: { kind: 'ownedTable', appUserId: 'alice' }, docs: { kind: 'ownedTable', appUserId: 'alice' } } });
    assertThrows(() => c.db.table('loose'), 'Table loose has the ownedTable policy but does not declare a required string field "ownerId".');
    assertThrows(() => c.db.table('docs'), 'Table docs has the ownedTable policy but does not declare a required string field "ownerId".');
    const w = call({ policies: { notes: { kind: 'workspaceTable', workspaceIds: [] } } });
    assertThrows(() => w.db.table('notes'), 'Table notes has the workspaceTable policy but does not declare a required string field "workspaceId".');
    await call({ policies: ALICE }).w('loose').insert({ text: 'x' });
    assertEqual((await call({ policies: BOB }).r('loose').all()).length, 1, 'no policy, no filter');
  }));

// --- Database -------------------------------------------------------------------------------------

test('database: a read-only database hands out handles without write methods; writes are refused underneath too', (make) =>
  withTables(make, ITEMS, async ({ call, driver, signer, clock }) => {
    const handle = call({ writable: false }).db.table('items');
    for (const method of ['insert', 'update', 'delete']) assert(!(method in handle), `read-only handle has no ${method}`);
    for (const method of ['all', 'get', 'find', 'first', 'page', 'count']) assert(typeof (handle as unknown as Record<string, unknown>)[method] === 'function', `read-only handle has ${method}`);
    assert(Object.isFrozen(handle), 'handles are frozen');
    const writable = call().db.table('items');
    for (const method of ['insert', 'update', 'delete']) assert(method in writable, `writable handle has ${method}`);
    const table = new Table(tableModel('items', ITEMS.items!), { driver, meter: new Meter(DEFAULT_LIMITS), signer, clock, writable: false });
    await assertRejects(table.insert({ group: 'g', n: 1 }), 'insert on items is not allowed here: a query cannot write.');
    await assertRejects(table.delete('x'), 'delete on items is not allowed here: a query cannot write.');
    assertEqual(await call().r('items').all(), [], 'nothing written');
  }));

test('database: an unknown table is refused, with a suggestion when one is close', (make) =>
  withTables(make, TODOS, async ({ call }) => {
    const { db } = call();
    assertThrows(() => db.table('todoz'), 'Unknown table "todoz". Did you mean "todos"?');
    assertThrows(() => db.table('elephants'), 'Unknown table "elephants".');
    assertThrows(() => db.table('__platform_objects'), 'Unknown table "__platform_objects".');
    assertThrows(() => db.table('constructor'), 'Unknown table "constructor".');
    assert(db.table('todos') === db.table('todos'), 'one handle per table per call');
  }));

test('database: methods return promises and report failures as rejections', (make) =>
  withTables(make, ITEMS, async ({ call }) => {
    const items = call().w('items');
    const results = [items.all(), items.get('x'), items.find({ where: { group: 'g' } }), items.first({ where: {} }), items.page({ where: { group: 'g' } }), items.count({ where: { group: 'g' } }), items.insert({}), items.update('x', {}), items.delete('x')];
    for (const result of results) assert(result instanceof Promise, 'a promise');
    const settled = await Promise.allSettled(results);
    assertEqual(settled.map((s) => s.status), ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected'], 'settled');
  }));

export const tableConformance: ConformanceCase[] = cases;
