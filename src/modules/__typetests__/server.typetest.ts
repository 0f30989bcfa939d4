// Type tests of `platform/server` against the fixture app in app.d.ts (capability `database` only).
// Each `@ts-expect-error` must be needed, so this file proves both what compiles and what must not.

import {
  authenticated,
  defineServer,
  endpoint,
  memberOf,
  mutation,
  ownedTable,
  query,
  stream,
  workspaceTable,
} from 'platform/server';
import type {
  EndpointCtx,
  HandlerCtx,
  MutationCtx,
  Page,
  QueryCtx,
  Row,
  StorageReader,
  StorageReceipt,
  StorageWriter,
  StoredObject,
  TableReader,
  TableWriter,
} from 'platform/server';
import type { App, Auth, JsonValue } from 'platform/types';

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assert = <T extends true>(): void => {};

type Todo = Row<'todos'>;

// The registered app is the fixture, not the permissive default.
assert<Equals<App['capabilities'], 'database'>>();
assert<Equals<keyof App['tables'], 'todos' | 'notes' | 'tags'>>();

// --- Input descriptors -------------------------------------------------------------------------

query({
  input: { title: 'string', n: 'number', ok: 'boolean', at: 'datetime', raw: 'bytes', meta: 'json', nested: { a: 'string' } },
  handler: (_ctx, input) => {
    assert<
      Equals<
        typeof input,
        { title: string; n: number; ok: boolean; at: Date; raw: Uint8Array; meta: JsonValue; nested: { a: string } }
      >
    >();
  },
});

query({
  input: {},
  handler: (_ctx, input) => {
    assert<Equals<typeof input, Record<string, never>>>();
  },
});

query({
  // @ts-expect-error 'text' is not an input descriptor
  input: { title: 'text' },
  handler: () => {},
});

// --- Context: capabilities and access ----------------------------------------------------------

query({
  input: {},
  handler: (ctx) => {
    assert<Equals<typeof ctx, QueryCtx>>();
    assert<Equals<typeof ctx.auth, Auth>>();
    assert<Equals<typeof ctx.env, Readonly<Record<string, string | undefined>>>>();
    assert<Equals<ReturnType<typeof ctx.db.table<'todos'>>, TableReader<App['tables']['todos']>>>();
    // @ts-expect-error storage is not a declared capability of the fixture app
    void ctx.storage;
  },
});

mutation({
  input: {},
  handler: (ctx) => {
    assert<Equals<typeof ctx, MutationCtx>>();
    assert<Equals<ReturnType<typeof ctx.db.table<'todos'>>, TableWriter<App['tables']['todos']>>>();
    // @ts-expect-error storage is not a declared capability of the fixture app
    void ctx.storage;
  },
});

// Contexts for other capability sets.
assert<Equals<HandlerCtx<'read', 'database' | 'storage'>['storage'], StorageReader>>();
assert<Equals<HandlerCtx<'write', 'storage'>['storage'], StorageWriter>>();
assert<Equals<keyof HandlerCtx<'read', never>, 'auth' | 'env'>>();
assert<Equals<keyof HandlerCtx<'write', 'storage'>, 'auth' | 'env' | 'storage'>>();

// --- Tables ------------------------------------------------------------------------------------

query({
  input: {},
  handler: async (ctx) => {
    const todos = ctx.db.table('todos');
    assert<Equals<Awaited<ReturnType<typeof todos.all>>, Todo[]>>();
    assert<Equals<Awaited<ReturnType<typeof todos.get>>, Todo | null>>();
    assert<Equals<Awaited<ReturnType<typeof todos.page>>, Page<Todo>>>();

    await todos.find({ where: { id: 'x' } });
    await todos.find({ where: { ownerId: 'u' }, limit: 10 });
    await todos.first({ where: { ownerId: 'u', done: true } });
    await todos.count({ where: { ownerId: 'u' }, limit: 1 });
    await todos.page({ where: { ownerId: 'u' }, cursor: 'c' });
    // @ts-expect-error `done` alone is not a prefix of a declared index
    await todos.find({ where: { done: true } });
    // @ts-expect-error `title` is not indexed
    await todos.find({ where: { ownerId: 'u', title: 'x' } });
    // @ts-expect-error `id` cannot be combined with index columns
    await todos.find({ where: { id: 'x', ownerId: 'u' } });
    // @ts-expect-error the column's type is the row field's type
    await todos.find({ where: { ownerId: 1 } });
    // @ts-expect-error an empty filter matches no declared index
    await todos.find({ where: {} });
    // @ts-expect-error `tags` declares no index, only `{ id }` works
    await ctx.db.table('tags').find({ where: { label: 'x' } });

    // @ts-expect-error queries get the read half: no insert
    await todos.insert({ title: 'x' });
    // @ts-expect-error queries get the read half: no update
    await todos.update('x', { done: true });
    // @ts-expect-error queries get the read half: no delete
    await todos.delete('x');
    // @ts-expect-error only declared tables
    ctx.db.table('todoz');
  },
});

mutation({
  input: {},
  handler: async (ctx) => {
    const todos = ctx.db.table('todos');
    const row = await todos.insert({ title: 'milk' });
    assert<Equals<typeof row, Todo>>();
    await todos.insert({ title: 'milk', ownerId: 'ignored', due: null, state: 'open', meta: { a: [1] } });
    // @ts-expect-error title is required
    await todos.insert({ done: true });
    // @ts-expect-error generated fields are not insertable
    await todos.insert({ title: 'x', createdAt: new Date() });
    // @ts-expect-error enum fields take their declared values
    await todos.insert({ title: 'x', state: 'closed' });
    await todos.update(row.id, { done: true, due: null });
    // @ts-expect-error update never accepts id
    await ctx.db.table('tags').update('t', { id: 'u' });
    await ctx.db.table('tags').insert({ id: 'application-chosen', label: 'x' });
    // @ts-expect-error idSource application: insert requires id
    await ctx.db.table('tags').insert({ label: 'x' });
    await todos.delete(row.id);
  },
});

// --- Results -----------------------------------------------------------------------------------

class Point {
  constructor(readonly x: number) {}
}
interface TodoInterface {
  title: string;
}
declare const todoInterface: TodoInterface;
declare const readonlyTitles: readonly string[];
declare const receipt: StorageReceipt;
declare const stored: StoredObject;

query({ input: {}, handler: () => 1 });
query({ input: {}, handler: () => 'x' });
query({ input: {}, handler: () => null });
query({ input: {}, handler: () => new Date() });
query({ input: {}, handler: () => new Uint8Array(2) });
query({ input: {}, handler: () => ({ a: [1, { b: new Date() }], c: undefined }) });
query({ input: {}, handler: async (ctx) => ctx.db.table('todos').first({ where: { ownerId: 'u' } }) });
query({ input: {}, handler: async (ctx) => ctx.db.table('todos').page({ where: { ownerId: 'u' } }) });
query({
  input: {},
  handler: async (ctx) => {
    const { rows, cursor } = await ctx.db.table('todos').page({ where: { ownerId: 'u' } });
    return { titles: rows.map((row) => row.title), cursor };
  },
});
query({ input: {}, handler: () => ({ key: receipt.key, size: receipt.size, uploadedAt: receipt.uploadedAt }) });
mutation({ input: {}, handler: () => {} });
mutation({ input: {}, handler: async () => {} });

{
  const q = query({ input: {}, handler: async (ctx) => ctx.db.table('todos').all() });
  assert<Equals<Awaited<ReturnType<typeof q.handler>>, Todo[]>>();
}

// @ts-expect-error a Map is not encodable
query({ input: {}, handler: () => new Map<string, number>() });
// @ts-expect-error a Set is not encodable
query({ input: {}, handler: async () => new Set([1]) });
// @ts-expect-error a class instance is not encodable
query({ input: {}, handler: () => new Point(1) });
// @ts-expect-error result shapes must be type aliases, not interfaces
query({ input: {}, handler: () => todoInterface });
// @ts-expect-error read-only arrays are refused
query({ input: {}, handler: () => readonlyTitles });
// @ts-expect-error a storage receipt must not be returned directly
mutation({ input: {}, handler: () => receipt });
// @ts-expect-error nor a stored object
query({ input: {}, handler: () => stored });
// @ts-expect-error nor a table handle
query({ input: {}, handler: (ctx) => ctx.db.table('todos') });
// @ts-expect-error nor a function
query({ input: {}, handler: () => () => 1 });
// @ts-expect-error nor an array holding undefined
query({ input: {}, handler: () => [1, undefined] });
// @ts-expect-error nor a bigint
mutation({ input: {}, handler: async () => 1n });

// --- Storage (types directly: the fixture app has no storage capability) -----------------------

declare const reader: StorageReader;
declare const writer: StorageWriter;
async function storageTypes(): Promise<void> {
  const object = await reader.get('a/b');
  assert<Equals<typeof object, StoredObject | null>>();
  const head = await reader.head('a/b');
  assert<Equals<typeof head, Omit<StoredObject, 'bytes'> extends NonNullable<typeof head> ? typeof head : never>>();
  const listed = await reader.list({ prefix: 'a/', limit: 10 });
  assert<Equals<typeof listed.cursor, string | null>>();
  const put = await writer.put('a/b', 'text', { contentType: 'text/plain' });
  assert<Equals<typeof put, StorageReceipt>>();
  await writer.put('a/c', new Uint8Array(1));
  await writer.delete('a/b');
  // @ts-expect-error the read half has no put
  await reader.put('a/b', 'x');
  // @ts-expect-error the read half has no delete
  await reader.delete('a/b');
}
void storageTypes;

// --- Guards ------------------------------------------------------------------------------------

query({ input: { workspaceId: 'string' }, auth: memberOf('workspaceId'), handler: () => {} });
query({ input: { workspaceId: 'string' }, auth: [authenticated(), memberOf('workspaceId')], handler: () => {} });
query({ input: {}, auth: authenticated(), handler: () => {} });
mutation({ input: { ws: 'string' }, auth: [memberOf('ws')], handler: () => {} });
// @ts-expect-error memberOf names a field the input lacks
query({ input: { title: 'string' }, auth: memberOf('workspaceId'), handler: () => {} });
// @ts-expect-error memberOf names a field the input lacks (in a list)
mutation({ input: {}, auth: [authenticated(), memberOf('workspaceId')], handler: () => {} });
// @ts-expect-error memberOf needs a 'string' field
query({ input: { count: 'number' }, auth: memberOf('count'), handler: () => {} });

// --- Endpoints ---------------------------------------------------------------------------------

endpoint<'GET /api/files/:id'>((_request, ctx) => {
  assert<Equals<typeof ctx.params, { id: string }>>();
  return new Response(ctx.params.id);
});
endpoint<'POST /api/a/:workspace/files/:name'>((_request, ctx) => {
  assert<Equals<typeof ctx.params, { workspace: string; name: string }>>();
  return new Response();
});
endpoint<'GET /api/plain'>((_request, ctx) => {
  // @ts-expect-error a route without parameters has none
  void ctx.params.id;
  return new Response();
});
endpoint(async (request, ctx) => {
  assert<Equals<typeof ctx.params, Record<string, string>>>();
  assert<Equals<typeof ctx, EndpointCtx>>();
  await ctx.db.table('todos').insert({ title: await request.text() });
  // @ts-expect-error storage is not a declared capability of the fixture app
  void ctx.storage;
  return stream(new ReadableStream<Uint8Array>(), { headers: { 'content-type': 'text/plain' } });
});
endpoint(async () => stream(new Response('upstream')));
endpoint(() => new Response(), [authenticated()]);
// @ts-expect-error an endpoint returns a Response
endpoint(() => 'text');
// @ts-expect-error endpoints have no input for memberOf to name
endpoint(() => new Response(), memberOf('workspaceId'));

// --- defineServer ------------------------------------------------------------------------------

defineServer({
  endpoints: {
    'GET /api/files/:id': endpoint<'GET /api/files/:id'>(() => new Response()),
    'GET /api/other/:id': endpoint(() => new Response()),
  },
});

defineServer({
  endpoints: {
    // @ts-expect-error an endpoint typed for one route key is registered under another
    'GET /api/other/:id': endpoint<'GET /api/files/:id'>(() => new Response()),
  },
});

defineServer({ authPolicies: { todos: ownedTable(), notes: workspaceTable() } });

defineServer({
  authPolicies: {
    // @ts-expect-error notes has no ownerId field
    notes: ownedTable(),
  },
});

defineServer({
  authPolicies: {
    // @ts-expect-error todos has no workspaceId field
    todos: workspaceTable(),
  },
});

defineServer({
  authPolicies: {
    // @ts-expect-error tags has neither field
    tags: ownedTable(),
  },
});

defineServer({
  authPolicies: {
    // @ts-expect-error not a declared table
    todoz: ownedTable(),
  },
});

defineServer({
  // @ts-expect-error not a key of defineServer
  querys: {},
  queries: {},
});

{
  const server = defineServer({
    queries: { 'a.b': query({ input: { n: 'number' }, handler: (_ctx, { n }) => n * 2 }) },
  });
  assert<Equals<Parameters<(typeof server)['queries']['a.b']['handler']>[1], { n: number }>>();
  assert<Equals<Awaited<ReturnType<(typeof server)['queries']['a.b']['handler']>>, number>>();
}
