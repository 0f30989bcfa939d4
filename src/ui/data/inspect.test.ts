/**
 * The data browser's sandbox side (worker/runtime-inspect.ts) over sql.js in Node, and the trusted
 * side's check of what a sandbox answers (isInspectResult / isRuntimeMessage): read-only SQL holds,
 * answers stay within the limits, and anything out of shape is refused.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { SqlJsDriver } from '../../adapters/sqljs/sqljs-driver';
import type { Manifest } from '../../core/manifest';
import { personaAuth, AppRuntime } from '../../core/runtime';
import { defineServer, mutation, ownedTable, query } from '../../modules/server';
import { INSPECT_LIMITS, isInspectResult, isRuntimeMessage, type InspectQuery, type InspectResult } from '../../../worker/protocol/runtime';
import { encodeJson } from '../../modules/wire';
import { inspect, operationsOf, type Inspected } from '../../../worker/runtime-inspect';
import { projectDataText, toSharedObject } from '../../core/share';

const require = createRequire(import.meta.url);
const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '../../../templates/todo/app.manifest.json'), 'utf8')) as Manifest;
const definition = defineServer({
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  queries: { 'todos.list': query({ input: {}, handler: (ctx: any) => ctx.db.table('todos').all() }) },
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  mutations: { 'todos.add': mutation({ input: { title: 'string' }, handler: (ctx: any, input: { title: string }) => ctx.db.table('todos').insert({ title: input.title }) }) },
  authPolicies: { todos: ownedTable() },
} as never);

let SQL: SqlJsStatic;
beforeAll(async () => {
  SQL = await initSqlJs({ locateFile: (file: string) => require.resolve(`sql.js/dist/${file}`) });
});

async function app(titles: string[]): Promise<{ target: Inspected; runtime: AppRuntime }> {
  const db = new SQL.Database();
  const driver = new SqlJsDriver(db);
  const runtime = new AppRuntime({ manifest, definition, driver });
  const alice = personaAuth(manifest.name, 'alice', 'session');
  for (const title of titles) expect((await runtime.call(alice, 'mutation', 'todos.add', { title })).status).toBe(200);
  return { target: { db, driver, manifest, operations: operationsOf(definition) }, runtime };
}

const count = async (target: Inspected) => {
  const result = await inspect(target, { kind: 'sql', sql: 'SELECT count(*) FROM todos' });
  if (result.kind !== 'sql') throw new Error(result.kind === 'refused' ? result.message : result.kind);
  return result.grid.rows[0]![0];
};

describe('inspection in the sandbox', () => {
  it('lists the app tables first with columns, indexes and counts, and the operations', async () => {
    const { target } = await app(['milk', 'bread']);
    const result = await inspect(target, { kind: 'overview' });
    expect(isInspectResult(result)).toBe(true);
    if (result.kind !== 'overview') throw new Error(result.kind);
    expect(result.tables[0]).toMatchObject({ name: 'todos', declared: true, rowCount: 2 });
    expect(result.tables[0]!.columns.map((c) => c.name)).toEqual(expect.arrayContaining(['id', 'createdAt', 'ownerId', 'title', 'done']));
    expect(result.tables[0]!.indexes.some((i) => i.columns.join() === 'ownerId,done,createdAt,id')).toBe(true);
    expect(result.tables.slice(1).every((t) => !t.declared)).toBe(true);
    expect(result.operations).toEqual([
      { kind: 'mutation', name: 'todos.add' },
      { kind: 'query', name: 'todos.list' },
    ]);
  });

  it('pages rows in creation order', async () => {
    const { target } = await app(['a', 'b', 'c']);
    const page = await inspect(target, { kind: 'rows', table: 'todos', offset: 1, limit: 1 });
    if (page.kind !== 'rows') throw new Error(page.kind);
    expect(page.total).toBe(3);
    expect(page.grid.rows).toHaveLength(1);
    expect(page.grid.rows[0]![page.grid.columns.indexOf('title')]).toBe('b');
    expect(await inspect(target, { kind: 'rows', table: 'nope"; DROP TABLE todos; --', offset: 0, limit: 10 })).toMatchObject({ kind: 'refused' });
    expect(await count(target)).toBe(3);
  });

  it.each([
    ['DELETE FROM todos', 'read-only'],
    ['WITH x AS (SELECT 1) DELETE FROM todos', 'readonly database'],
    ['SELECT 1; DELETE FROM todos', 'One statement at a time'],
    ['SELECT 1; -- fine\n; DROP TABLE todos', 'One statement at a time'],
    ["/* hidden */ INSERT INTO todos (id) VALUES ('x')", 'read-only'],
    ['PRAGMA query_only = OFF', 'read-only'],
    ['PRAGMA foreign_keys(0)', 'read-only'],
    ["ATTACH DATABASE ':memory:' AS other", 'read-only'],
    ['SELECT * FROM nowhere', 'no such table'],
    ['   ', 'Write a statement'],
  ])('refuses %j and writes nothing', async (sql, message) => {
    const { target, runtime } = await app(['milk']);
    const result = await inspect(target, { kind: 'sql', sql });
    expect(result).toMatchObject({ kind: 'refused' });
    expect((result as { message: string }).message).toContain(message);
    expect(await count(target)).toBe(1);
    // query_only is off again: the app still writes.
    expect((await runtime.call(personaAuth(manifest.name, 'bob', 's'), 'mutation', 'todos.add', { title: 'x' })).status).toBe(200);
    expect(await count(target)).toBe(2);
  });

  it('runs reads, cuts long results and marks them truncated', async () => {
    const { target } = await app(['milk']);
    expect(await inspect(target, { kind: 'sql', sql: '-- the titles\nSELECT title FROM todos;' })).toMatchObject({ kind: 'sql', grid: { columns: ['title'], rows: [['milk']], truncated: false } });
    expect(await inspect(target, { kind: 'sql', sql: 'PRAGMA table_info(todos)' })).toMatchObject({ kind: 'sql' });
    const many = await inspect(target, { kind: 'sql', sql: `WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x, zeroblob(40) AS b, printf('%.*c', 20000, 'y') AS long FROM n` });
    if (many.kind !== 'sql') throw new Error(many.kind);
    expect(many.grid.rows).toHaveLength(INSPECT_LIMITS.rows);
    expect(many.grid.truncated).toBe(true);
    expect(many.grid.rows[0]![1]).toEqual({ blob: 40, hex: '00'.repeat(32) });
    expect((many.grid.rows[0]![2] as string).length).toBe(INSPECT_LIMITS.text);
    expect(isInspectResult(many)).toBe(true);
  });

  it('exports and imports state; a document for another app is refused with DG1824 and its detail code', async () => {
    const { target } = await app(['milk', 'bread']);
    const exported = await inspect(target, { kind: 'export-state' });
    if (exported.kind !== 'export-state') throw new Error(exported.kind);
    const other = (await app([])).target;
    expect(await inspect(other, { kind: 'import-state', text: exported.text })).toEqual({ kind: 'import-state', counts: { todos: 2 } });
    expect(await count(other)).toBe(2);
    const refused = await inspect(other, { kind: 'import-state', text: JSON.stringify({ ...JSON.parse(exported.text), app: 'notes' }) });
    expect(refused).toMatchObject({ kind: 'refused', diagnostic: { code: 'DG1824', detail: { code: 'state_import_application_mismatch' } } });
    expect(isInspectResult(refused)).toBe(true);
    expect(await count(other)).toBe(2);
  });

  it('imports a project-data document: the records, then its stored objects; a hostile object writes nothing', async () => {
    const { target } = await app(['milk']);
    const exported = await inspect(target, { kind: 'export-state' });
    if (exported.kind !== 'export-state') throw new Error(exported.kind);
    const state = JSON.parse(exported.text) as unknown;
    const hello = toSharedObject({ key: 'uploads/hello.txt', contentType: 'text/plain', uploadedAt: 5, bytes: new TextEncoder().encode('hello') });
    const other = (await app([])).target;
    const hostile = projectDataText(state, [hello, { ...hello, key: 'x/../y' }]);
    expect(await inspect(other, { kind: 'import-state', text: hostile })).toMatchObject({ kind: 'refused', message: expect.stringContaining('stored_objects_invalid') });
    expect(await count(other)).toBe(0);
    expect(await inspect(other, { kind: 'storage-list', limit: 10 })).toEqual({ kind: 'storage-list', objects: [], more: false });
    const imported = await inspect(other, { kind: 'import-state', text: projectDataText(state, [hello]) });
    expect(imported).toEqual({ kind: 'import-state', counts: { todos: 1 }, objects: 1 });
    expect(isInspectResult(imported)).toBe(true);
    const got = await inspect(other, { kind: 'storage-get', key: 'uploads/hello.txt' });
    expect(got).toEqual({ kind: 'storage-get', object: { key: 'uploads/hello.txt', size: 5, contentType: 'text/plain', uploadedAt: 5, bytes: new TextEncoder().encode('hello') } });
    // Objects alone (no state): the records stay as they are.
    expect(await inspect(other, { kind: 'import-state', text: projectDataText(undefined, []) })).toEqual({ kind: 'import-state', counts: {}, objects: 0 });
    expect(await count(other)).toBe(1);
  });
});

describe('an edit of a row as a persona, in the sandbox', () => {
  const editable = async (titles: string[]) => {
    const made = await app(titles);
    const sessions = { alice: personaAuth(manifest.name, 'alice', 'session'), bob: personaAuth(manifest.name, 'bob', 'session'), guest: personaAuth(manifest.name, 'guest', 'session') };
    const target: Inspected = { ...made.target, runtime: made.runtime, caller: (persona) => sessions[persona] };
    const rows = await inspect(target, { kind: 'rows', table: 'todos', offset: 0, limit: 10 });
    if (rows.kind !== 'rows') throw new Error(rows.kind);
    const ids = rows.grid.rows.map((row) => row[rows.grid.columns.indexOf('id')] as string);
    return { target, ids };
  };
  const titles = async (target: Inspected) => {
    const result = await inspect(target, { kind: 'sql', sql: 'SELECT title, done FROM todos ORDER BY createdAt, id' });
    if (result.kind !== 'sql') throw new Error(result.kind);
    return result.grid.rows;
  };

  it('the owner’s edit goes through the table API: typed values land, and it says what it wrote', async () => {
    const { target, ids } = await editable(['milk']);
    const result = await inspect(target, { kind: 'update-row', persona: 'alice', table: 'todos', id: ids[0]!, patch: encodeJson({ title: 'oat milk', done: true }) });
    expect(result).toEqual({ kind: 'update-row', status: 200, wrote: { tables: ['todos'], storage: false } });
    expect(isInspectResult(result)).toBe(true);
    expect(await titles(target)).toEqual([['oat milk', 1]]);
  });

  it('the policy holds for another persona: the runtime’s error comes back and nothing changes', async () => {
    const { target, ids } = await editable(['milk']);
    const result = await inspect(target, { kind: 'update-row', persona: 'bob', table: 'todos', id: ids[0]!, patch: encodeJson({ title: 'stolen' }) });
    expect(result).toMatchObject({ kind: 'update-row', status: 400, error: { code: 'operation_failed', message: `Record not found: todos/${ids[0]}` }, wrote: { tables: [], storage: false } });
    expect(isInspectResult(result)).toBe(true);
    expect(await titles(target)).toEqual([['milk', 0]]);
  });

  it.each<[string, Partial<Extract<InspectQuery, { kind: 'update-row' }>>, string]>([
    ['a patch that is not wire JSON', { patch: '{oops' }, 'not wire JSON'],
    ['a patch that is not an object', { patch: '[1]' }, 'an object of field values'],
    ['an unknown persona', { persona: 'mallory' as never }, 'Unknown persona'],
  ])('refuses %s before the runtime', async (_what, change, message) => {
    const { target, ids } = await editable(['milk']);
    const result = await inspect(target, { kind: 'update-row', persona: 'alice', table: 'todos', id: ids[0]!, patch: '{}', ...change });
    expect(result).toMatchObject({ kind: 'refused', message: expect.stringContaining(message) });
    expect(await titles(target)).toEqual([['milk', 0]]);
  });

  it('an engine without the runtime at hand (a hosted inspection) refuses edits', async () => {
    const { target } = await app(['milk']);
    expect(await inspect(target, { kind: 'update-row', persona: 'alice', table: 'todos', id: 'x', patch: '{}' })).toMatchObject({ kind: 'refused' });
  });
});

describe('the trusted side checks what a sandbox answers', () => {
  const grid = { columns: ['a'], rows: [[1]], truncated: false };
  it.each<[string, unknown]>([
    ['an unknown kind', { kind: 'eval', code: 'alert(1)' }],
    ['a row wider than its columns', { kind: 'sql', grid: { ...grid, rows: [[1, 2]] } }],
    ['too many rows', { kind: 'sql', grid: { ...grid, rows: Array.from({ length: INSPECT_LIMITS.rows + 1 }, () => [1]) } }],
    ['an over-long cell', { kind: 'sql', grid: { ...grid, rows: [['x'.repeat(INSPECT_LIMITS.text + 1)]] } }],
    ['an object cell', { kind: 'sql', grid: { ...grid, rows: [[{ toString: 'x' }]] } }],
    ['a blob cell with extra keys', { kind: 'sql', grid: { ...grid, rows: [[{ blob: 1, hex: '00', more: 1 }]] } }],
    ['a negative total', { kind: 'rows', table: 't', total: -1, grid }],
    ['a non-DG diagnostic', { kind: 'refused', message: 'x', diagnostic: { code: 'X1', severity: 'error', message: 'm' } }],
    ['a nested detail', { kind: 'refused', message: 'x', diagnostic: { code: 'DG1824', severity: 'error', message: 'm', detail: { code: { x: 1 } } } }],
    ['bytes that are not bytes', { kind: 'storage-get', object: { key: 'k', size: 1, contentType: 't', uploadedAt: 1, bytes: [1] } }],
    ['counts that are not counts', { kind: 'import-state', counts: { todos: 1.5 } }],
    ['an export that is not text', { kind: 'export-state', text: { protocol: 'x' } }],
    ['an edit without what it wrote', { kind: 'update-row', status: 200 }],
    ['an edit with a malformed error', { kind: 'update-row', status: 400, error: { code: 1, message: 'm', errorId: 'e' }, wrote: { tables: [], storage: false } }],
    ['an edit with a status that is not a number', { kind: 'update-row', status: '200', wrote: { tables: [], storage: false } }],
  ])('refuses %s', (_what, result) => {
    expect(isInspectResult(result)).toBe(false);
    expect(isRuntimeMessage({ type: 'inspected', id: 1, result })).toBe(false);
  });

  it('accepts well-formed answers', () => {
    const answers: InspectResult[] = [
      { kind: 'sql', grid: { columns: ['a', 'b', 'c'], rows: [[null, 'x', { blob: 3, hex: 'ff00aa' }]], truncated: true } },
      { kind: 'storage-list', objects: [{ key: 'a/b', size: 3, contentType: 'text/plain', uploadedAt: 1 }], more: false },
      { kind: 'storage-get', object: null },
      { kind: 'refused', message: 'no', diagnostic: { code: 'DG1824', severity: 'error', message: 'm', detail: { code: 'state_import_schema_mismatch', table: 'todos' } } },
    ];
    for (const result of answers) expect(isRuntimeMessage({ type: 'inspected', id: 7, result })).toBe(true);
  });
});
