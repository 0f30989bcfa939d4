/**
 * The client module's side of live updates (QueryClient, the engine behind useQuery and mutation):
 * which mounted queries re-run after this client's own mutation, after another client's (over the
 * live-update stream) and after invalidateQueries, and that a budget of 0 means no stream. Each
 * client is a QueryClient whose host sends the wire routes to one AppRuntime as one persona.
 *
 * And its calls over a host that can `send` (a playground preview's port straight to the runtime
 * worker): the wire route's request without HTTP, answered with what the route's response says. The
 * same calls over the port and over `fetch` settle alike (result, tables read and written,
 * RuntimeErrors), a query sent under the live connection is held there, and what `send` cannot take
 * goes over `fetch`. The port's far end here does what the runtime worker does
 * (worker/runtime-sandbox.ts `previewCall`): `AppRuntime.callWire`, answered with `callAnswer`, across
 * a real MessageChannel.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nodeSqlDriverFactory } from '../../adapters/node/sqljs';
import type { Manifest } from '../manifest';
import { testClock } from './clock';
import type { Limits } from './limits';
import { personaAuth, type PersonaName } from './personas';
import { AppRuntime, callAnswer } from './runtime';
import { QueryClient, type CallSettled, type ClientHost } from '../../modules/client';
import { defineServer, endpoint, mutation, query } from '../../modules/server';
import { LIVE_PATH, type CallAnswer } from '../../modules/wire';

const factory = await nodeSqlDriverFactory();

const MANIFEST: Manifest = {
  format: 'platform.application-source.v0',
  name: 'client-live',
  entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' },
  capabilities: ['database'],
  database: { tables: { notes: { fields: { text: { type: 'string' } } }, tags: { fields: { label: { type: 'string' } } } } },
};

const definition = defineServer({
  queries: {
    'notes.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('notes').all()).map((n) => n.text) }),
    'tags.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('tags').all()).map((t) => t.label) }),
    'values.echo': query({ input: { at: 'datetime' }, handler: async (_ctx, input) => ({ at: input.at, bytes: new Uint8Array([1, 2, 3]), none: null }) }),
    'fails.always': query({ input: {}, handler: async () => { throw new Error('it failed'); } }),
  },
  mutations: {
    'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => { await ctx.db.table('notes').insert({ text: input.text }); return input.text.length; } }),
    'tags.add': mutation({ input: { label: 'string' }, handler: async (ctx, input) => { await ctx.db.table('tags').insert({ label: input.label }); } }),
  },
  endpoints: {
    'POST /api/notes': endpoint(async (_request, ctx) => { await ctx.db.table('notes').insert({ text: 'by an endpoint' }); return new Response(null, { status: 204 }); }),
  },
});

const clients: QueryClient[] = [];
const closers: (() => void)[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
  for (const close of closers.splice(0)) close();
});

function runtime(liveConnections: number, limits: Partial<Limits> = {}): AppRuntime {
  return new AppRuntime({ manifest: MANIFEST, definition, driver: factory(), clock: testClock(), limits: { liveConnections, ...limits } });
}

/** A page of the app as `persona`: its QueryClient over the runtime's wire routes. */
function page(rt: AppRuntime, persona: PersonaName): QueryClient {
  return portPage(rt, persona, 'fetch').client;
}

/** A mounted query: how often it started and its last result. */
function watch(client: QueryClient, name: string) {
  const seen = { starts: 0, settles: 0, data: undefined as unknown, last: undefined as CallSettled | undefined };
  client.watch(name, () => ({}), {
    start: () => void seen.starts++,
    settle: (settled) => {
      seen.settles++;
      seen.last = settled;
      seen.data = settled.result;
    },
  });
  return seen;
}

describe('QueryClient: what re-runs after a write', () => {
  it('with a liveConnections budget, another client\'s mutation re-runs the queries that read what it wrote, and no others', async () => {
    const rt = runtime(2);
    const alice = page(rt, 'alice');
    const bob = page(rt, 'bob');
    const notes = watch(alice, 'notes.list');
    const tags = watch(alice, 'tags.list');
    // Connected, and both queries run (again) under the connection, so the runtime holds them there.
    await vi.waitFor(() => {
      expect(alice.liveState).toBe('open');
      expect(notes.last?.connection).toBe(alice.liveConnection);
      expect(tags.last?.connection).toBe(alice.liveConnection);
    });
    expect(notes.last?.read).toEqual({ tables: ['notes'], storage: false });
    const tagStarts = tags.starts;

    await bob.mutation('notes.add', { text: 'from bob' });
    await vi.waitFor(() => expect(notes.data).toEqual(['from bob']));
    // The event re-ran what read notes at once: tags.list did not start again.
    expect(tags.starts).toBe(tagStarts);
  });

  it("with the default budget of 0 there is no stream: a client refreshes after its own mutations only, and only what they affect", async () => {
    const rt = runtime(0);
    const alice = page(rt, 'alice');
    const bob = page(rt, 'bob');
    const notes = watch(alice, 'notes.list');
    const tags = watch(alice, 'tags.list');
    await vi.waitFor(() => expect(alice.liveState).toBe('off'));
    await vi.waitFor(() => expect([notes.settles, tags.settles]).toEqual([1, 1]));

    await bob.mutation('notes.add', { text: 'from bob' });
    // No stream carries bob's write: alice still shows what she had.
    expect([notes.starts, notes.data]).toEqual([1, []]);

    // Her own mutation of tags re-runs tags.list only.
    await alice.mutation('tags.add', { label: 'red' });
    expect([notes.starts, tags.starts]).toEqual([1, 2]);
    await vi.waitFor(() => expect(tags.data).toEqual(['red']));

    // Her own mutation of notes re-runs notes.list, which now shows bob's note too.
    await alice.mutation('notes.add', { text: 'from alice' });
    await vi.waitFor(() => expect(notes.data).toEqual(['from bob', 'from alice']));
    expect(tags.starts).toBe(2);
  });

  it('an endpoint write refreshes nothing until invalidateQueries names the namespace', async () => {
    const rt = runtime(2);
    const alice = page(rt, 'alice');
    const notes = watch(alice, 'notes.list');
    const tags = watch(alice, 'tags.list');
    await vi.waitFor(() => {
      expect(alice.liveState).toBe('open');
      expect([notes.last?.connection, tags.last?.connection]).toEqual([alice.liveConnection, alice.liveConnection]);
    });
    const before = [notes.starts, tags.starts];
    const written = await rt.fetch(personaAuth(MANIFEST.name, 'bob', 's'), new Request('http://app.test/api/notes', { method: 'POST' }));
    expect(written.status).toBe(204);
    expect([notes.starts, tags.starts]).toEqual(before);
    alice.invalidate(['notes']);
    expect([notes.starts, tags.starts]).toEqual([before[0]! + 1, before[1]]);
    await vi.waitFor(() => expect(notes.data).toEqual(['by an endpoint']));
  });

  it('when the stream ends (its lifetime), the client connects again and runs its queries under the new connection', async () => {
    const rt = runtime(1, { streamLifetimeMs: 200 });
    const alice = page(rt, 'alice');
    const bob = page(rt, 'bob');
    const notes = watch(alice, 'notes.list');
    await vi.waitFor(() => expect(alice.liveState).toBe('open'));
    const first = alice.liveConnection;
    await vi.waitFor(() => {
      expect(alice.liveState).toBe('open');
      expect(alice.liveConnection).not.toBe(first);
      expect(notes.last?.connection).toBe(alice.liveConnection);
    }, { timeout: 10_000 });
    await bob.mutation('notes.add', { text: 'after the reconnect' });
    await vi.waitFor(() => expect(notes.data).toEqual(['after the reconnect']));
  });

  it('a page past the budget gets no stream and retries later; the others keep theirs', async () => {
    const rt = runtime(1);
    const alice = page(rt, 'alice');
    const bob = page(rt, 'bob');
    watch(alice, 'notes.list');
    await vi.waitFor(() => expect(alice.liveState).toBe('open'));
    watch(bob, 'notes.list');
    await vi.waitFor(() => expect(bob.liveState).toBe('waiting'));
    expect(rt.liveConnections).toBe(1);
  });
});

describe('QueryClient: the server replaced under the page', () => {
  const upper = defineServer({
    queries: { ...definition.queries, 'notes.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('notes').all()).map((n) => n.text.toUpperCase()) }) },
    mutations: definition.mutations,
  });

  /** A page whose host reaches whichever runtime `to` holds now (a restart keeps the data: both share one driver). */
  function replaceable() {
    const driver = factory();
    const first = new AppRuntime({ manifest: MANIFEST, definition, driver, clock: testClock(), limits: { liveConnections: 2 } });
    const to = { runtime: first };
    const auth = personaAuth(MANIFEST.name, 'alice', 'session-alice');
    const client = new QueryClient(() => ({ fetch: (path, init) => to.runtime.fetch(auth, new Request(new URL(path, 'http://app.test'), init)) }));
    clients.push(client);
    const next = () => (to.runtime = new AppRuntime({ manifest: MANIFEST, definition: upper, driver, clock: testClock(), limits: { liveConnections: 2 } }));
    return { client, first, next };
  }

  it('re-runs every mounted query on the new server at once, and holds its live connection there', async () => {
    const { client, first, next } = replaceable();
    const notes = watch(client, 'notes.list');
    await vi.waitFor(() => expect([client.liveState, notes.last?.connection]).toEqual(['open', client.liveConnection]));
    await client.mutation('notes.add', { text: 'milk' });
    await vi.waitFor(() => expect(notes.data).toEqual(['milk']));

    const second = next();
    expect(client.serverReplaced()).toBe(true);
    await vi.waitFor(() => expect(notes.data).toEqual(['MILK']));
    // The connection is the new server's, and the query is held there: another page's write reaches it.
    await vi.waitFor(() => expect([second.liveConnections, notes.last?.connection]).toEqual([1, client.liveConnection]));
    const bob = page(second, 'bob');
    await bob.mutation('notes.add', { text: 'eggs' });
    await vi.waitFor(() => expect(notes.data).toEqual(['MILK', 'EGGS']));
    expect(first.liveConnections).toBe(0);
  });

  it('answers false and re-runs nothing once a query ran outside the mounted ones (its answer may be on screen)', async () => {
    const { client, next } = replaceable();
    const notes = watch(client, 'notes.list');
    await vi.waitFor(() => expect(notes.last?.connection).toBe(client.liveConnection));
    expect(await client.query('notes.list', {})).toEqual([]);
    const starts = notes.starts;
    next();
    expect(client.serverReplaced()).toBe(false);
    expect(notes.starts).toBe(starts);
  });
});

interface PortPage {
  client: QueryClient;
  /** Wire routes the client fetched (the live stream is not counted). */
  fetched: string[];
  /** Calls it sent on the port, with the live connection each went under. */
  sent: { kind: string; name: string; live: string | undefined }[];
}

/**
 * A page of the app as `persona`. Over `fetch` only (a hosted page), or with `send` over a port whose
 * far end runs the call as the worker does; `send: 'none'` answers undefined (no port now).
 */
function portPage(rt: AppRuntime, persona: PersonaName, send: 'port' | 'fetch' | 'none'): PortPage {
  const auth = personaAuth(MANIFEST.name, persona, `session-${persona}`);
  const seen: PortPage = { client: undefined as unknown as QueryClient, fetched: [], sent: [] };
  const host: ClientHost = {
    fetch: (path, init) => {
      if (path !== LIVE_PATH) seen.fetched.push(path);
      return rt.fetch(auth, new Request(new URL(path, 'http://app.test'), init));
    },
  };
  if (send === 'none') host.send = async () => undefined;
  if (send === 'port') {
    const channel = new MessageChannel();
    const waiting = new Map<number, (answer: CallAnswer) => void>();
    let next = 1;
    channel.port1.onmessage = async ({ data }: MessageEvent<{ id: number; kind: 'query' | 'mutation'; name: string; body: string; live?: string }>) => {
      const outcome = await rt.callWire(auth, data.kind, data.name, data.body, data.live);
      channel.port1.postMessage({ id: data.id, answer: callAnswer(data.kind, outcome) });
    };
    channel.port2.onmessage = ({ data }: MessageEvent<{ id: number; answer: CallAnswer }>) => {
      waiting.get(data.id)?.(data.answer);
      waiting.delete(data.id);
    };
    closers.push(() => {
      channel.port1.close();
      channel.port2.close();
    });
    host.send = (kind, name, body, live) =>
      new Promise((resolve) => {
        const id = next++;
        waiting.set(id, resolve);
        seen.sent.push({ kind, name, live });
        channel.port2.postMessage({ id, kind, name, body, ...(live ? { live } : {}) });
      });
  }
  seen.client = new QueryClient(() => host);
  clients.push(seen.client);
  return seen;
}

/** A settled call as plain data: its error as the RuntimeError's fields (the errorId's form only: each failure has its own). */
function plain(settled: CallSettled): unknown {
  const { error, ...rest } = settled;
  if (!error) return rest;
  return { ...rest, error: { name: error.name, status: error.status, code: error.code, message: error.message, errorId: error.errorId.startsWith('err_') ? 'err_…' : error.errorId } };
}

/** The same calls, in order, as each page makes them. */
async function run(client: QueryClient): Promise<unknown[]> {
  const calls: ['query' | 'mutation', string, unknown][] = [
    ['query', 'notes.list', {}],
    ['mutation', 'notes.add', { text: 'milk' }],
    ['query', 'notes.list', {}],
    ['query', 'values.echo', { at: new Date(0) }],
    ['query', 'nope', {}],
    ['mutation', 'nope', {}],
    ['query', 'fails.always', {}],
    ['mutation', 'notes.add', { text: 5 }],
    ['mutation', 'notes.add', { text: 'x'.repeat(5_000) }],
    ['mutation', 'notes.add', { text: new Map() }],
    ['mutation', 'tags.add', { label: 'red' }],
  ];
  const settled = [];
  for (const [kind, name, input] of calls) settled.push(plain(await client.send(kind, name, input)));
  return settled;
}

describe('QueryClient over a host that sends calls without HTTP', () => {
  it('settles each call as its wire route does: the result, what a query read and a mutation wrote, and the same RuntimeErrors', async () => {
    const overPort = portPage(runtime(0, { requestBytes: 1_000 }), 'alice', 'port');
    const overFetch = portPage(runtime(0, { requestBytes: 1_000 }), 'alice', 'fetch');
    const viaPort = await run(overPort.client);
    expect(viaPort).toEqual(await run(overFetch.client));
    // What that is, so the comparison is of something.
    expect(viaPort.slice(0, 5)).toEqual([
      { result: [], read: { tables: ['notes'], storage: false } },
      { result: 4, wrote: { tables: ['notes'], storage: false } },
      { result: ['milk'], read: { tables: ['notes'], storage: false } },
      { result: { at: new Date(0), bytes: new Uint8Array([1, 2, 3]), none: null }, read: { tables: [], storage: false } },
      { read: { tables: [], storage: false }, error: { name: 'RuntimeError', status: 404, code: 'not_found', message: 'There is no query named "nope".', errorId: 'err_…' } },
    ]);
    expect(viaPort[8]).toMatchObject({ error: { status: 413, code: 'request_too_large' } });
    // An input with no wire form is refused before anything is sent, on either path.
    expect(viaPort[9]).toMatchObject({ error: { status: 0, message: expect.stringContaining('Cannot encode a Map at $.input.text') } });
    // Every call but that one went over the port, none over fetch.
    expect(overPort.fetched).toEqual([]);
    expect(overPort.sent).toHaveLength(10);
  });

  it('sends a query under the live connection, which holds it there: another client\'s mutation re-runs it and nothing else', async () => {
    const rt = runtime(2);
    const alice = portPage(rt, 'alice', 'port');
    const bob = portPage(rt, 'bob', 'port');
    const seen = { notes: [] as CallSettled[], tags: [] as CallSettled[] };
    alice.client.watch('notes.list', () => ({}), { start() {}, settle: (settled) => seen.notes.push(settled) });
    alice.client.watch('tags.list', () => ({}), { start() {}, settle: (settled) => seen.tags.push(settled) });
    await vi.waitFor(() => {
      expect(alice.client.liveState).toBe('open');
      expect(seen.notes.at(-1)?.connection).toBe(alice.client.liveConnection);
      expect(seen.tags.at(-1)?.connection).toBe(alice.client.liveConnection);
    });
    expect(alice.sent.filter((call) => call.live === alice.client.liveConnection).map((call) => call.name).sort()).toEqual(['notes.list', 'tags.list']);
    const tagRuns = seen.tags.length;

    await bob.client.mutation('notes.add', { text: 'from bob' });
    await vi.waitFor(() => expect(seen.notes.at(-1)?.result).toEqual(['from bob']));
    expect(seen.tags.length).toBe(tagRuns);
    // Over fetch went only the live streams.
    expect([alice.fetched, bob.fetched]).toEqual([[], []]);
  });

  it('a call that send cannot take now (it answers undefined) goes over the wire route', async () => {
    const rt = runtime(0);
    const alice = portPage(rt, 'alice', 'none');
    expect(await alice.client.mutation('notes.add', { text: 'over fetch' })).toBe(10);
    expect(plain(await alice.client.send('query', 'notes.list', {}))).toEqual({ result: ['over fetch'], read: { tables: ['notes'], storage: false } });
    expect(alice.fetched).toEqual(['/_platform/v0/mutation/notes.add', '/_platform/v0/query/notes.list']);
  });
});
