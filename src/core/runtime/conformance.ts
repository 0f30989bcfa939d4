/**
 * The runtime's conformance suite: errors, transactions, input, auth, endpoints and schema changes, with the exact
 * codes, statuses and messages of runtime.md. Framework-neutral (no test runner imports), so the same
 * cases run under Vitest in Node and in Chromium.
 */
import type { Manifest } from '../manifest';
import { authenticated, defineServer, endpoint, memberOf, mutation, ownedTable, query, stream } from '../../modules/server';
import { testClock } from './clock';
import { personaAuth, type PersonaName } from './personas';
import { AppRuntime, type CallOutcome } from './runtime';
import type { SqlDriverFactory } from './sql-driver';
import type { Limits } from './limits';
import type { RuntimeErrorInfo } from '../../modules/types';
import { schemaConformance } from './schema-conformance';

export interface ConformanceCase {
  name: string;
  run(make: SqlDriverFactory): Promise<void>;
}

function fail(message: string): never {
  throw new Error(message);
}

function equal(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) fail(`${what}: expected ${e}, got ${a}`);
}

function ok(condition: unknown, what: string): void {
  if (!condition) fail(what);
}

const MANIFEST: Manifest = {
  format: 'platform.application-source.v0',
  name: 'conformance-app',
  entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' },
  capabilities: ['database', 'storage'],
  database: {
    tables: {
      notes: { fields: { ownerId: { type: 'string' }, text: { type: 'string' } }, indexes: { byOwner: ['ownerId'] } },
      tags: { fields: { label: { type: 'string' } }, idSource: 'application' },
    },
  },
  storage: {},
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server exercising every rule; handlers stay small. */
const definition = defineServer({
  queries: {
    'notes.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('notes').all()).map((n) => ({ id: n.id, text: n.text })) }),
    'notes.throws': query({ input: {}, handler: async () => { throw new Error('query broke'); } }),
    'notes.big': query({ input: { size: 'number' }, handler: async (_ctx, input) => 'x'.repeat(input.size) }),
    'notes.whoami': query({ input: {}, handler: async (ctx) => ({ ...ctx.auth, roles: [...ctx.auth.roles], permissions: [...ctx.auth.permissions], workspaceIds: [...ctx.auth.workspaceIds] }) }),
    'notes.env': query({ input: { name: 'string' }, handler: async (ctx, input) => ({ value: ctx.env[input.name] ?? null, has: input.name in ctx.env }) }),
    'notes.echo': query({ input: { s: 'string', n: 'number', b: 'boolean', d: 'datetime', bytes: 'bytes', j: 'json', nested: { inner: 'string' } }, handler: async (_ctx, input) => ({ dateIsDate: input.d instanceof Date, bytesIsBytes: input.bytes instanceof Uint8Array, ...input }) }),
    'notes.readonly': query({ input: {}, handler: async (ctx) => ({ insert: 'insert' in ctx.db.table('notes'), put: 'put' in ctx.storage }) }),
    'notes.member': query({ input: { workspaceId: 'string' }, auth: memberOf('workspaceId'), handler: async () => 'in' }),
    'blobs.has': query({ input: { key: 'string' }, handler: async (ctx, input) => ({ row: (await ctx.db.table('tags').get(input.key)) !== null, object: (await ctx.storage.head(input.key)) !== null }) }),
  },
  mutations: {
    'notes.add': mutation({ input: { text: 'string' }, auth: authenticated(), handler: async (ctx, input) => ({ id: (await ctx.db.table('notes').insert({ text: input.text })).id }) }),
    'notes.addThenThrow': mutation({
      input: { text: 'string' },
      handler: async (ctx, input) => {
        await ctx.db.table('notes').insert({ text: input.text });
        await ctx.storage.put('a/b.txt', 'written');
        const seen = await ctx.db.table('notes').all();
        throw new Error(`saw ${seen.length} then threw`);
      },
    }),
    'notes.slow': mutation({
      input: { ms: 'number' },
      handler: async (ctx, input) => {
        await ctx.db.table('notes').insert({ text: 'before the deadline' });
        await sleep(input.ms);
        await ctx.db.table('notes').insert({ text: 'after the deadline' });
      },
    }),
    'tags.add': mutation({ input: { id: 'string', label: 'string' }, handler: async (ctx, input) => { await ctx.db.table('tags').insert({ id: input.id, label: input.label }); } }),
    'blobs.put': mutation({
      input: { key: 'string', kib: 'number' },
      handler: async (ctx, input) => {
        await ctx.db.table('tags').insert({ id: input.key, label: 'blob' });
        await ctx.storage.put(input.key, new Uint8Array(input.kib * 1024).fill(7));
      },
    }),
    'blobs.delete': mutation({ input: { key: 'string' }, handler: async (ctx, input) => { await ctx.db.table('tags').delete(input.key); await ctx.storage.delete(input.key); } }),
  },
  endpoints: {
    'GET /api/params/:a/:b': endpoint<'GET /api/params/:a/:b'>(async (_request, ctx) => Response.json(ctx.params)),
    'GET /api/plain': endpoint(async (_request, ctx) => Response.json({ params: ctx.params })),
    'POST /api/body': endpoint(async (request) => Response.json({ method: request.method, type: request.headers.get('content-type'), text: await request.text() })),
    'POST /api/throws': endpoint(async () => { throw new Error('endpoint broke'); }),
    'POST /api/write': endpoint(async (_request, ctx) => { await ctx.db.table('notes').insert({ text: 'from an endpoint' }); return new Response(null, { status: 204 }); }),
    'GET /api/big/:n': endpoint<'GET /api/big/:n'>(async (_request, ctx) => new Response('x'.repeat(Number(ctx.params.n)))),
    'GET /api/private': endpoint(async () => new Response('secret'), authenticated()),
    'GET /api/stream/:n': endpoint<'GET /api/stream/:n'>(async (_request, ctx) => {
      const n = Number(ctx.params.n);
      let sent = 0;
      return stream(new ReadableStream<Uint8Array>({ pull(c) { if (sent >= n) return c.close(); sent += 10; c.enqueue(new Uint8Array(10).fill(65)); } }), { headers: { 'content-type': 'text/plain' } });
    }),
    'GET /api/stream-forever': endpoint(async () => stream(new ReadableStream<Uint8Array>({ async pull(c) { await sleep(5); c.enqueue(new Uint8Array([66])); } }))),
    'POST /api/write-then-stream': endpoint(async (_request, ctx) => { await ctx.db.table('notes').insert({ text: 'x' }); return stream(new ReadableStream<Uint8Array>()); }),
    'GET /api/not-a-response': endpoint(async () => 'text' as unknown as Response),
    'POST /api/blob/:key': endpoint<'POST /api/blob/:key'>(async (request, ctx) => {
      await ctx.storage.put(ctx.params.key, new Uint8Array(await request.arrayBuffer()));
      return new Response(null, { status: 201 });
    }),
  },
  authPolicies: { notes: ownedTable() },
});

function runtime(make: SqlDriverFactory, limits: Partial<Limits> = {}, env: Record<string, string> = {}): AppRuntime {
  return new AppRuntime({ manifest: MANIFEST, definition, driver: make(), clock: testClock(), limits, env });
}

const as = (persona: PersonaName) => personaAuth(MANIFEST.name, persona, 'session-1');

function failure(outcome: CallOutcome, status: number, code: string, message?: string | RegExp): void {
  ok(outcome.error, `expected a ${status} ${code}, the call succeeded with ${JSON.stringify(outcome.result)}`);
  equal([outcome.status, outcome.error!.code], [status, code], 'status and code');
  ok(/^err_[a-z2-7]{26}$/.test(outcome.error!.errorId), `an errorId like err_<26 base32>, got ${outcome.error!.errorId}`);
  if (typeof message === 'string') equal(outcome.error!.message, message, 'message');
  else if (message) ok(message.test(outcome.error!.message), `message ${outcome.error!.message} ~ ${message}`);
}

async function body(response: Response): Promise<{ protocol: string; error: RuntimeErrorInfo }> {
  return (await response.json()) as never;
}

export const runtimeConformance: ConformanceCase[] = [
  // Errors
  {
    name: 'errors: a query that throws is 400 operation_failed with its message and an errorId',
    async run(make) {
      failure(await runtime(make).call(as('alice'), 'query', 'notes.throws', {}), 400, 'operation_failed', 'query broke');
    },
  },
  {
    name: 'errors: an endpoint that throws is 500 endpoint_failed, in the runtime error body',
    async run(make) {
      const response = await runtime(make).fetch(as('alice'), new Request('http://app.test/api/throws', { method: 'POST' }));
      equal(response.status, 500, 'status');
      const parsed = await body(response);
      equal([parsed.protocol, parsed.error.code, parsed.error.message], ['platform.runtime.v0', 'endpoint_failed', 'endpoint broke'], 'body');
      ok(parsed.error.errorId.startsWith('err_'), 'errorId');
    },
  },
  {
    name: 'errors: a guard denial is 400 operation_failed on every surface, never 5xx',
    async run(make) {
      const rt = runtime(make);
      failure(await rt.call(as('guest'), 'mutation', 'notes.add', { text: 'x' }), 400, 'operation_failed', 'This operation requires a signed-in user.');
      failure(await rt.call(as('bob'), 'query', 'notes.member', { workspaceId: 'ws-alice' }), 400, 'operation_failed');
      equal((await rt.call(as('alice'), 'query', 'notes.member', { workspaceId: 'ws-alice' })).result, 'in', 'member');
      const response = await rt.fetch(as('guest'), new Request('http://app.test/api/private'));
      equal([response.status, (await body(response)).error.code], [400, 'operation_failed'], 'endpoint guard');
    },
  },
  {
    name: 'errors: past the deadline is 504 handler_deadline_exceeded, nothing is kept, and the late handler cannot write',
    async run(make) {
      const rt = runtime(make, { handlerDeadlineMs: 40 });
      failure(await rt.call(as('alice'), 'mutation', 'notes.slow', { ms: 120 }), 504, 'handler_deadline_exceeded');
      await sleep(150);
      equal((await rt.call(as('alice'), 'query', 'notes.list', {})).result, [], 'nothing written, before or after the deadline');
    },
  },
  {
    name: 'errors: a request over requestBytes is 413 request_too_large before the handler runs',
    async run(make) {
      const rt = runtime(make, { requestBytes: 64 });
      const wire = await rt.fetch(as('alice'), new Request('http://app.test/_platform/v0/mutation/notes.add', { method: 'POST', body: JSON.stringify({ input: { text: 'x'.repeat(100) } }) }));
      equal([wire.status, (await body(wire)).error.code], [413, 'request_too_large'], 'wire');
      const raw = await rt.fetch(as('alice'), new Request('http://app.test/api/write', { method: 'POST', body: 'y'.repeat(65) }));
      equal([raw.status, (await body(raw)).error.code], [413, 'request_too_large'], 'endpoint');
      equal((await rt.call(as('alice'), 'query', 'notes.list', {})).result, [], 'no handler ran');
    },
  },
  {
    name: 'wire: a call from a body the host read (AppRuntime.wire) is answered as fetch answers its wire route',
    async run(make) {
      const [viaFetch, viaWire] = [runtime(make, { requestBytes: 64 }), runtime(make, { requestBytes: 64 })];
      const seen = async (response: Response) => {
        // Ids and errorIds are each runtime's own: their shape is compared, not their letters.
        const parsed = JSON.parse((await response.text()).replace(/[a-z2-7]{26}/g, 'ID')) as unknown;
        return { status: response.status, type: response.headers.get('content-type'), read: response.headers.get('x-platform-read'), wrote: response.headers.get('x-platform-wrote'), body: parsed };
      };
      const calls: Array<['query' | 'mutation', string, string]> = [
        ['mutation', 'notes.add', '{"input":{"text":"one"}}'],
        ['query', 'notes.list', '{"input":{}}'],
        ['query', 'notes.throws', '{"input":{}}'],
        ['query', 'notes.none', '{"input":{}}'],
        ['query', 'notes.list', 'not json'],
        ['mutation', 'notes.add', JSON.stringify({ input: { text: 'x'.repeat(100) } })],
      ];
      for (const [kind, name, text] of calls) {
        const bytes = new TextEncoder().encode(text);
        const fetched = await seen(await viaFetch.fetch(as('alice'), new Request(`http://app.test/_platform/v0/${kind}/${name}`, { method: 'POST', body: bytes })));
        const wired = await seen(await viaWire.wire(as('alice'), kind, name, bytes, null));
        equal(wired, fetched, `${kind} ${name} ${text.slice(0, 20)}`);
      }
    },
  },
  {
    name: 'errors: a response over responseBytes is response_too_large: 400 from a query, 500 from an endpoint',
    async run(make) {
      const rt = runtime(make, { responseBytes: 100 });
      failure(await rt.call(as('alice'), 'query', 'notes.big', { size: 200 }), 400, 'response_too_large');
      const response = await rt.fetch(as('alice'), new Request('http://app.test/api/big/200'));
      equal([response.status, (await body(response)).error.code], [500, 'response_too_large'], 'endpoint');
      equal((await rt.call(as('alice'), 'query', 'notes.big', { size: 10 })).result, 'xxxxxxxxxx', 'under the budget');
    },
  },
  {
    name: 'errors: stream() from a handler that wrote is 500 stream_not_admitted, and the write is not kept',
    async run(make) {
      const rt = runtime(make, { liveConnections: 1 });
      const response = await rt.fetch(as('alice'), new Request('http://app.test/api/write-then-stream', { method: 'POST' }));
      equal([response.status, (await body(response)).error.code], [500, 'stream_not_admitted'], 'refused');
      equal((await rt.call(as('alice'), 'query', 'notes.list', {})).result, [], 'rolled back');
    },
  },
  {
    name: 'errors: no free liveConnections slot is 503 stream_connection_budget_exceeded with Retry-After',
    async run(make) {
      const response = await runtime(make).fetch(as('alice'), new Request('http://app.test/api/stream/10'));
      equal([response.status, (await body(response)).error.code], [503, 'stream_connection_budget_exceeded'], 'default budget 0');
      ok(Number(response.headers.get('retry-after')) > 0, 'Retry-After');
    },
  },
  {
    name: 'errors: an application id already taken is 409 unique_violation',
    async run(make) {
      const rt = runtime(make);
      await rt.call(as('alice'), 'mutation', 'tags.add', { id: 'red', label: 'Red' });
      failure(await rt.call(as('alice'), 'mutation', 'tags.add', { id: 'red', label: 'Again' }), 409, 'unique_violation');
    },
  },
  {
    name: 'errors: a write that grows the store past maxStoredBytes is 507 storage_quota_exceeded, refused whole; reads and deletes still work',
    async run(make) {
      const rt = runtime(make, { maxStoredBytes: 256 * 1024 });
      let refused: CallOutcome | undefined;
      let kept = 0;
      for (let i = 0; i < 16 && !refused; i++) {
        const outcome = await rt.call(as('alice'), 'mutation', 'blobs.put', { key: `k${i}`, kib: 48 });
        if (outcome.error) refused = outcome;
        else kept++;
      }
      ok(kept >= 1 && kept < 16, `some writes fit under 256 KiB, then one is refused (kept ${kept})`);
      failure(refused!, 507, 'storage_quota_exceeded', /over its quota of 262144 bytes/);
      // Nothing of the refused call was kept (its row nor its object); what came before is all there.
      equal((await rt.call(as('alice'), 'query', 'blobs.has', { key: `k${kept}` })).result, { row: false, object: false }, 'the refused write');
      equal((await rt.call(as('alice'), 'query', 'blobs.has', { key: `k${kept - 1}` })).result, { row: true, object: true }, 'the last write that fit');
      // An endpoint's write is refused the same way.
      const response = await rt.fetch(as('alice'), new Request('http://app.test/api/blob/by-endpoint', { method: 'POST', body: new Uint8Array(48 * 1024) }));
      equal([response.status, (await body(response)).error.code], [507, 'storage_quota_exceeded'], 'endpoint');
      // A delete is not a growth: it works over the quota, and frees room for a write again.
      equal((await rt.call(as('alice'), 'mutation', 'blobs.delete', { key: 'k0' })).status, 200, 'delete');
      equal((await rt.call(as('alice'), 'mutation', 'blobs.put', { key: 'again', kib: 16 })).status, 200, 'a write after the delete');
    },
  },
  {
    name: 'errors: an unknown operation or route is 404, a wrong method 405',
    async run(make) {
      const rt = runtime(make);
      failure(await rt.call(as('alice'), 'query', 'notes.nope', {}), 404, 'not_found');
      equal((await rt.fetch(as('alice'), new Request('http://app.test/api/nothing'))).status, 404, 'route');
      equal((await rt.fetch(as('alice'), new Request('http://app.test/api/plain', { method: 'DELETE' }))).status, 405, 'method');
    },
  },
  {
    name: 'errors: an endpoint that returns no Response is 500 endpoint_failed',
    async run(make) {
      const response = await runtime(make).fetch(as('alice'), new Request('http://app.test/api/not-a-response'));
      equal([response.status, (await body(response)).error.message], [500, 'An endpoint must return a Response or stream(…).'], 'refused');
    },
  },

  // Transactions
  {
    name: 'transactions: reads see the call\'s own writes, and a throw leaves nothing behind, storage included',
    async run(make) {
      const rt = runtime(make);
      failure(await rt.call(as('alice'), 'mutation', 'notes.addThenThrow', { text: 'x' }), 400, 'operation_failed', 'saw 1 then threw');
      equal((await rt.call(as('alice'), 'query', 'notes.list', {})).result, [], 'no row');
      const response = await rt.fetch(as('alice'), new Request('http://app.test/api/plain'));
      ok(response.ok, 'still serving');
    },
  },
  {
    name: 'transactions: queries get read-only tables and storage, and report what mutations wrote',
    async run(make) {
      const rt = runtime(make);
      equal((await rt.call(as('alice'), 'query', 'notes.readonly', {})).result, { insert: false, put: false }, 'read-only');
      const added = await rt.call(as('alice'), 'mutation', 'notes.add', { text: 'a' });
      equal(added.wrote, { tables: ['notes'], storage: false }, 'wrote');
    },
  },

  // Input
  {
    name: 'input: every declared field is required, unknown fields and wrong types are refused by name',
    async run(make) {
      const rt = runtime(make);
      failure(await rt.call(as('alice'), 'mutation', 'notes.add', {}), 400, 'operation_failed', 'Input field "text" is missing.');
      failure(await rt.call(as('alice'), 'mutation', 'notes.add', { text: 'a', extra: 1 }), 400, 'operation_failed', 'Input field "extra" is not declared by the operation.');
      failure(await rt.call(as('alice'), 'mutation', 'notes.add', { text: 5 }), 400, 'operation_failed', 'Input field "text" must be a string, not a number.');
      failure(await rt.call(as('alice'), 'query', 'notes.big', { size: Number.NaN }), 400, 'operation_failed', 'Input field "size" must be a finite number, not NaN.');
      failure(await rt.call(as('alice'), 'query', 'notes.big', { size: Number.POSITIVE_INFINITY }), 400, 'operation_failed', 'Input field "size" must be a finite number, not Infinity.');
      failure(await rt.call(as('alice'), 'query', 'notes.whoami', null), 400, 'operation_failed', 'The input must be an object, not null.');
    },
  },
  {
    name: 'input: datetime arrives as a Date, bytes as a Uint8Array, nested objects are exact',
    async run(make) {
      const rt = runtime(make);
      const input = { s: 's', n: 1.5, b: true, d: new Date('2026-01-02T03:04:05Z'), bytes: new Uint8Array([1, 2]), j: { any: ['json'] }, nested: { inner: 'i' } };
      const outcome = await rt.call(as('alice'), 'query', 'notes.echo', input);
      const result = outcome.result as Record<string, unknown>;
      equal([result.dateIsDate, result.bytesIsBytes], [true, true], 'types');
      ok(result.d instanceof Date && (result.d as Date).toISOString() === '2026-01-02T03:04:05.000Z', 'a Date comes back');
      ok(result.bytes instanceof Uint8Array, 'bytes come back');
      failure(await rt.call(as('alice'), 'query', 'notes.echo', { ...input, nested: { inner: 'i', more: 1 } }), 400, 'operation_failed', 'Input field "nested.more" is not declared by the operation.');
      failure(await rt.call(as('alice'), 'query', 'notes.echo', { ...input, d: '2026-01-02' }), 400, 'operation_failed', 'Input field "d" must be a date, not a string.');
    },
  },

  // Auth
  {
    name: 'auth: ctx.auth per persona, with stable app-specific ids',
    async run(make) {
      const rt = runtime(make);
      const alice = (await rt.call(as('alice'), 'query', 'notes.whoami', {})).result as Record<string, unknown>;
      ok(/^local:alice:[0-9a-f]{12}$/.test(String(alice.appUserId)), `alice's appUserId ${String(alice.appUserId)}`);
      equal([alice.kind, alice.workspaceIds, alice.roles, alice.permissions, alice.id === alice.appUserId], ['user', ['ws-team', 'ws-alice'], [], [], true], 'alice');
      const bob = (await rt.call(as('bob'), 'query', 'notes.whoami', {})).result as Record<string, unknown>;
      equal([bob.kind, bob.workspaceIds], ['user', ['ws-team']], 'bob');
      const guest = (await rt.call(as('guest'), 'query', 'notes.whoami', {})).result as Record<string, unknown>;
      equal([guest.kind, guest.workspaceIds], ['guest', []], 'guest');
      ok(personaAuth('another-app', 'alice').appUserId !== alice.appUserId, 'different per application');
      equal(personaAuth(MANIFEST.name, 'alice').appUserId, alice.appUserId, 'stable');
    },
  },
  {
    name: 'auth: an owned table shows each persona only its rows',
    async run(make) {
      const rt = runtime(make);
      await rt.call(as('alice'), 'mutation', 'notes.add', { text: 'alice' });
      await rt.call(as('bob'), 'mutation', 'notes.add', { text: 'bob' });
      equal(((await rt.call(as('alice'), 'query', 'notes.list', {})).result as Array<{ text: string }>).map((n) => n.text), ['alice'], 'alice');
      equal((await rt.call(as('guest'), 'query', 'notes.list', {})).result, [], 'guest');
    },
  },
  {
    name: 'env: ctx.env holds the environment values; an unset name is undefined',
    async run(make) {
      const rt = runtime(make, {}, { GREETING: 'hi' });
      equal((await rt.call(as('alice'), 'query', 'notes.env', { name: 'GREETING' })).result, { value: 'hi', has: true }, 'set');
      equal((await rt.call(as('alice'), 'query', 'notes.env', { name: 'MISSING' })).result, { value: null, has: false }, 'unset');
      rt.setEnv({ MISSING: 'now' });
      equal((await rt.call(as('alice'), 'query', 'notes.env', { name: 'MISSING' })).result, { value: 'now', has: true }, 'after setEnv');
    },
  },

  // Endpoints
  {
    name: 'endpoints: params are percent-decoded and may hold slashes; a route without params has {}',
    async run(make) {
      const rt = runtime(make);
      const response = await rt.fetch(as('alice'), new Request('http://app.test/api/params/a%2F..%2Fb/%E2%9C%93'));
      equal(await response.json(), { a: 'a/../b', b: '✓' }, 'params');
      equal(await (await rt.fetch(as('alice'), new Request('http://app.test/api/plain'))).json(), { params: {} }, 'no params');
    },
  },
  {
    name: 'endpoints: the handler gets a standard Request with method, headers and body, and endpoint writes commit',
    async run(make) {
      const rt = runtime(make);
      const response = await rt.fetch(as('alice'), new Request('http://app.test/api/body', { method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain' } }));
      equal(await response.json(), { method: 'POST', type: 'text/plain', text: 'hello' }, 'request');
      equal((await rt.fetch(as('alice'), new Request('http://app.test/api/write', { method: 'POST' }))).status, 204, 'write');
      equal(((await rt.call(as('alice'), 'query', 'notes.list', {})).result as unknown[]).length, 1, 'committed');
    },
  },
  {
    name: 'endpoints: a stream is delivered whole within its budget and frees its slot',
    async run(make) {
      const rt = runtime(make, { liveConnections: 1 });
      const response = await rt.fetch(as('alice'), new Request('http://app.test/api/stream/30'));
      equal([response.status, response.headers.get('content-type')], [200, 'text/plain'], 'head');
      equal((await response.text()).length, 30, 'body');
      equal(rt.openStreams, 0, 'slot freed');
      equal((await rt.fetch(as('alice'), new Request('http://app.test/api/stream/10'))).status, 200, 'slot reusable');
    },
  },
  {
    name: 'endpoints: a stream past streamedBytes is cut off mid-read',
    async run(make) {
      const rt = runtime(make, { liveConnections: 1, streamedBytes: 25 });
      const response = await rt.fetch(as('alice'), new Request('http://app.test/api/stream/100'));
      equal(response.status, 200, 'the status line went out');
      const reader = response.body!.getReader();
      let received = 0;
      let cut = false;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          received += value.byteLength;
        }
      } catch {
        cut = true;
      }
      equal([cut, received], [true, 25], 'cut at the budget');
      equal(rt.openStreams, 0, 'slot freed');
    },
  },
  {
    name: 'endpoints: a stream past its lifetime is cut off',
    async run(make) {
      const rt = runtime(make, { liveConnections: 1, streamLifetimeMs: 60 });
      const response = await rt.fetch(as('alice'), new Request('http://app.test/api/stream-forever'));
      let cut = false;
      try {
        await response.text();
      } catch {
        cut = true;
      }
      ok(cut, 'cut at the lifetime');
      equal(rt.openStreams, 0, 'slot freed');
    },
  },
  // Schema changes that keep data (schema-conformance.ts).
  ...schemaConformance,
];
