/**
 * Live updates in the runtime (live.ts): which tables a query depends on, which open live connections
 * a mutation refreshes, and the liveConnections budget the stream shares with stream() responses.
 * No test waits on a clock: "no event" is shown by the next event being another one (a stream keeps
 * its order).
 */
import { describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../../adapters/node/sqljs';
import type { Manifest } from '../manifest';
import { defineServer, endpoint, mutation, query, stream } from '../../modules/server';
import { LIVE_BUDGET_HEADER, LIVE_CONNECTION_HEADER, LIVE_PATH, READ_HEADER, WROTE_HEADER, parseLiveEvent, type LiveEvent } from '../../modules/wire';
import { testClock } from './clock';
import type { Limits } from './limits';
import { personaAuth, type PersonaName } from './personas';
import { AppRuntime } from './runtime';
import { visitorShare } from './live';

const factory = await nodeSqlDriverFactory();

const MANIFEST: Manifest = {
  format: 'platform.application-source.v0',
  name: 'live-app',
  entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' },
  capabilities: ['database', 'storage'],
  database: {
    tables: {
      notes: { fields: { text: { type: 'string' } }, indexes: { byText: ['text'] } },
      tags: { fields: { label: { type: 'string' } } },
    },
  },
  storage: {},
};

const definition = defineServer({
  queries: {
    'notes.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('notes').all()).map((n) => n.text) }),
    'notes.count': query({ input: {}, handler: async (ctx) => ctx.db.table('notes').count({ where: { text: 'hello' } }) }),
    'tags.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('tags').all()).map((t) => t.label) }),
    'both.list': query({ input: {}, handler: async (ctx) => ({ notes: (await ctx.db.table('notes').all()).length, tags: (await ctx.db.table('tags').all()).length }) }),
    'files.list': query({ input: {}, handler: async (ctx) => (await ctx.storage.list()).objects.map((o) => o.key) }),
    'me.name': query({ input: {}, handler: async (ctx) => ctx.auth.kind }),
    'notes.fails': query({ input: {}, handler: async (ctx) => { await ctx.db.table('notes').all(); throw new Error('no notes yet'); } }),
  },
  mutations: {
    'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => { await ctx.db.table('notes').insert({ text: input.text }); } }),
    'tags.add': mutation({ input: { label: 'string' }, handler: async (ctx, input) => { await ctx.db.table('tags').insert({ label: input.label }); } }),
    'files.put': mutation({ input: { key: 'string' }, handler: async (ctx, input) => { await ctx.storage.put(input.key, 'x'); } }),
    'nothing.done': mutation({ input: {}, handler: async () => 'nothing written' }),
  },
  endpoints: {
    'POST /api/notes': endpoint(async (_request, ctx) => { await ctx.db.table('notes').insert({ text: 'from an endpoint' }); return new Response(null, { status: 204 }); }),
    'GET /api/stream': endpoint(async () => stream(new ReadableStream<Uint8Array>({ pull() { /* never ends */ } }))),
  },
});

function runtime(limits: Partial<Limits> = {}): AppRuntime {
  return new AppRuntime({ manifest: MANIFEST, definition, driver: factory(), clock: testClock(), limits });
}

const as = (persona: PersonaName) => personaAuth(MANIFEST.name, persona, `session-${persona}`);

/** Reads a live stream event by event (pings skipped). */
class Events {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffer = '';
  readonly #decoder = new TextDecoder();

  constructor(response: Response) {
    this.#reader = response.body!.getReader();
  }

  /** The next event, or undefined when the stream ended. */
  async next(): Promise<LiveEvent | undefined> {
    for (;;) {
      const newline = this.#buffer.indexOf('\n');
      if (newline >= 0) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        const event = parseLiveEvent(line);
        if (!event) throw new Error(`not a live event: ${line}`);
        if (event.kind !== 'ping') return event;
        continue;
      }
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}

/** A client: its live connection, and its calls over the wire routes carrying the connection's id. */
class Client {
  readonly events: Events;
  readonly connection: string;

  private constructor(readonly rt: AppRuntime, readonly persona: PersonaName, events: Events, connection: string) {
    this.events = events;
    this.connection = connection;
  }

  static async open(rt: AppRuntime, persona: PersonaName): Promise<Client> {
    const response = await rt.fetch(as(persona), new Request(`http://app.test${LIVE_PATH}`));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const events = new Events(response);
    const open = await events.next();
    if (open?.kind !== 'open') throw new Error(`expected an open event, got ${JSON.stringify(open)}`);
    return new Client(rt, persona, events, open.connection);
  }

  send(kind: 'query' | 'mutation', name: string, input: unknown = {}, connection: string = this.connection): Promise<Response> {
    return this.rt.fetch(as(this.persona), new Request(`http://app.test/_platform/v0/${kind}/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [LIVE_CONNECTION_HEADER]: connection },
      body: JSON.stringify({ input }),
    }));
  }
}

describe('what a query depends on', () => {
  it('a query reports the tables it read, the store when it read it, and nothing when it read nothing', async () => {
    const rt = runtime();
    expect((await rt.call(as('alice'), 'query', 'notes.list', {})).read).toEqual({ tables: ['notes'], storage: false });
    expect((await rt.call(as('alice'), 'query', 'notes.count', {})).read).toEqual({ tables: ['notes'], storage: false });
    expect((await rt.call(as('alice'), 'query', 'both.list', {})).read).toEqual({ tables: ['notes', 'tags'], storage: false });
    expect((await rt.call(as('alice'), 'query', 'files.list', {})).read).toEqual({ tables: [], storage: true });
    expect((await rt.call(as('alice'), 'query', 'me.name', {})).read).toEqual({ tables: [], storage: false });
    // A query that failed after reading still depends on what it read: it may succeed once that changes.
    const failed = await rt.call(as('alice'), 'query', 'notes.fails', {});
    expect([failed.status, failed.read]).toEqual([400, { tables: ['notes'], storage: false }]);
  });

  it('the wire routes answer what a query read and what a mutation wrote in headers', async () => {
    const rt = runtime();
    const post = (path: string, input: unknown = {}) => rt.fetch(as('alice'), new Request(`http://app.test${path}`, { method: 'POST', body: JSON.stringify({ input }) }));
    expect((await post('/_platform/v0/query/both.list')).headers.get(READ_HEADER)).toBe('notes,tags');
    expect((await post('/_platform/v0/query/files.list')).headers.get(READ_HEADER)).toBe(':storage');
    expect((await post('/_platform/v0/query/me.name')).headers.get(READ_HEADER)).toBe(':none');
    expect((await post('/_platform/v0/query/notes.fails')).headers.get(READ_HEADER)).toBe('notes');
    expect((await post('/_platform/v0/mutation/notes.add', { text: 'a' })).headers.get(WROTE_HEADER)).toBe('notes');
    expect((await post('/_platform/v0/mutation/files.put', { key: 'a.txt' })).headers.get(WROTE_HEADER)).toBe(':storage');
    expect((await post('/_platform/v0/mutation/nothing.done')).headers.get(WROTE_HEADER)).toBe(':none');
  });
});

describe('which live connections a mutation refreshes', () => {
  it('the connections holding a query that read a written table get an event naming it; the writer and the others do not', async () => {
    const rt = runtime({ liveConnections: 3 });
    const alice = await Client.open(rt, 'alice');
    const bob = await Client.open(rt, 'bob');
    const guest = await Client.open(rt, 'guest');
    await alice.send('query', 'notes.list');
    await alice.send('query', 'tags.list');
    await bob.send('query', 'tags.list');
    await guest.send('query', 'notes.count');

    const answer = await guest.send('mutation', 'notes.add', { text: 'hello' });
    expect(answer.status).toBe(200);
    expect(await alice.events.next()).toEqual({ protocol: 'platform.live.v0', kind: 'invalidate', queries: ['notes.list'], tables: ['notes'], storage: false });

    // Bob's query read tags only: the first event he gets is that of the tags write that follows.
    await alice.send('mutation', 'tags.add', { label: 'red' });
    expect(await bob.events.next()).toMatchObject({ kind: 'invalidate', queries: ['tags.list'], tables: ['tags'] });
    // The guest wrote notes itself (its client re-runs from the answer): its first event is bob's notes write.
    await bob.send('mutation', 'notes.add', { text: 'from bob' });
    expect(await guest.events.next()).toMatchObject({ kind: 'invalidate', queries: ['notes.count'], tables: ['notes'] });
    expect(await alice.events.next()).toMatchObject({ kind: 'invalidate', queries: ['notes.list'] });
  });

  it('a query that read both tables is refreshed by either; the event names only the written tables it read', async () => {
    const rt = runtime({ liveConnections: 2 });
    const alice = await Client.open(rt, 'alice');
    const bob = await Client.open(rt, 'bob');
    await alice.send('query', 'both.list');
    await bob.send('mutation', 'tags.add', { label: 'x' });
    expect(await alice.events.next()).toMatchObject({ kind: 'invalidate', queries: ['both.list'], tables: ['tags'], storage: false });
    await bob.send('mutation', 'notes.add', { text: 'y' });
    expect(await alice.events.next()).toMatchObject({ kind: 'invalidate', queries: ['both.list'], tables: ['notes'] });
  });

  it('a write to the store refreshes queries that read the store', async () => {
    const rt = runtime({ liveConnections: 2 });
    const alice = await Client.open(rt, 'alice');
    const bob = await Client.open(rt, 'bob');
    await alice.send('query', 'files.list');
    await alice.send('query', 'notes.list');
    await bob.send('mutation', 'files.put', { key: 'a.txt' });
    expect(await alice.events.next()).toMatchObject({ kind: 'invalidate', queries: ['files.list'], tables: [], storage: true });
  });

  it('an endpoint write refreshes nothing; a failed mutation and one that wrote nothing neither', async () => {
    const rt = runtime({ liveConnections: 2 });
    const alice = await Client.open(rt, 'alice');
    await alice.send('query', 'notes.list');
    expect((await rt.fetch(as('bob'), new Request('http://app.test/api/notes', { method: 'POST' }))).status).toBe(204);
    expect((await rt.call(as('bob'), 'mutation', 'nothing.done', {})).status).toBe(200);
    expect((await rt.call(as('bob'), 'mutation', 'notes.add', { text: 1 })).status).toBe(400);
    // The first event alice gets is the one of the mutation that follows.
    await rt.call(as('bob'), 'mutation', 'notes.add', { text: 'by a mutation' });
    expect(await alice.events.next()).toMatchObject({ kind: 'invalidate', queries: ['notes.list'] });
    // And the endpoint's row is there: it was written, only not announced.
    expect((await rt.call(as('alice'), 'query', 'notes.list', {})).result).toEqual(['from an endpoint', 'by a mutation']);
  });

  it('a mutation through AppRuntime.call (the playground data panel) refreshes every holding connection', async () => {
    const rt = runtime({ liveConnections: 1 });
    const alice = await Client.open(rt, 'alice');
    await alice.send('query', 'notes.list');
    await rt.call(as('alice'), 'mutation', 'notes.add', { text: 'x' });
    expect(await alice.events.next()).toMatchObject({ kind: 'invalidate', queries: ['notes.list'] });
  });

  it("only a connection's own caller can add queries to it or keep its own mutations from it", async () => {
    const rt = runtime({ liveConnections: 2 });
    const alice = await Client.open(rt, 'alice');
    const bob = await Client.open(rt, 'bob');
    await bob.send('query', 'tags.list');
    // Bob names alice's connection: it holds nothing for that, and bob's own gets his query no hold.
    await bob.send('query', 'notes.list', {}, alice.connection);
    // Bob names alice's connection on his mutation: alice's connection is not kept from its event.
    await alice.send('query', 'tags.list');
    await bob.send('mutation', 'notes.add', { text: 'n' }, alice.connection);
    await bob.send('mutation', 'tags.add', { label: 't' }, alice.connection);
    expect(await alice.events.next()).toMatchObject({ kind: 'invalidate', queries: ['tags.list'], tables: ['tags'] });
  });
});

describe('the liveConnections budget', () => {
  it('with the default budget of 0 there is no stream: 503 stream_connection_budget_exceeded with Retry-After', async () => {
    const rt = runtime();
    const response = await rt.fetch(as('alice'), new Request(`http://app.test${LIVE_PATH}`));
    expect(response.status).toBe(503);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(response.headers.get(LIVE_BUDGET_HEADER)).toBe('0');
    expect(await response.json()).toMatchObject({ protocol: 'platform.runtime.v0', error: { code: 'stream_connection_budget_exceeded', message: 'No free live connection: the app allows 0.' } });
  });

  it('a connection past the budget is refused; a closed one frees its slot; stream() responses share the slots', async () => {
    const rt = runtime({ liveConnections: 2 });
    const first = await Client.open(rt, 'alice');
    await Client.open(rt, 'bob');
    expect(rt.openStreams).toBe(2);
    const refused = await rt.fetch(as('guest'), new Request(`http://app.test${LIVE_PATH}`));
    expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([503, 'stream_connection_budget_exceeded']);
    expect((await rt.fetch(as('guest'), new Request('http://app.test/api/stream'))).status).toBe(503);

    await first.events.cancel();
    expect([rt.openStreams, rt.liveConnections]).toEqual([1, 1]);
    const streamed = await rt.fetch(as('guest'), new Request('http://app.test/api/stream'));
    expect(streamed.status).toBe(200);
    expect((await rt.fetch(as('guest'), new Request(`http://app.test${LIVE_PATH}`))).status).toBe(503);
    await streamed.body!.cancel();
    await Client.open(rt, 'guest');
  });

  it('a named visitor holds at most its share (a quarter, at least two); the others keep theirs, and a freed slot is the visitor\'s again', async () => {
    expect([1, 2, 4, 8, 15, 20, 1000].map(visitorShare)).toEqual([1, 2, 2, 2, 3, 5, 250]);
    const rt = runtime({ liveConnections: 8 });
    const live = (visitor: string) => rt.fetch(as('guest'), new Request(`http://app.test${LIVE_PATH}`), visitor);
    const streamed = (visitor: string) => rt.fetch(as('guest'), new Request('http://app.test/api/stream'), visitor);
    const first = await live('source:a');
    const second = await streamed('source:a');
    expect([first.status, second.status]).toEqual([200, 200]);
    for (const refused of [await live('source:a'), await streamed('source:a')]) {
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.json()).toMatchObject({ error: { code: 'stream_connection_budget_exceeded', message: "No free live connection for this visitor: one visitor may hold 2 of the app's 8." } });
    }
    // Other visitors, and a host that names none, still get slots.
    expect((await live('source:b')).status).toBe(200);
    expect((await rt.fetch(as('guest'), new Request('http://app.test/api/stream'))).status).toBe(200);
    expect(rt.openStreams).toBe(4);
    await second.body!.cancel();
    expect((await streamed('source:a')).status).toBe(200);
  });

  it('only GET opens the stream', async () => {
    const rt = runtime({ liveConnections: 1 });
    expect((await rt.fetch(as('alice'), new Request(`http://app.test${LIVE_PATH}`, { method: 'POST' }))).status).toBe(405);
    expect(rt.openStreams).toBe(0);
  });

  it('a connection ends at the stream lifetime with a close event, and frees its slot', async () => {
    const rt = runtime({ liveConnections: 1, streamLifetimeMs: 50 });
    const alice = await Client.open(rt, 'alice');
    expect(await alice.events.next()).toEqual({ protocol: 'platform.live.v0', kind: 'close', reason: 'lifetime' });
    expect(await alice.events.next()).toBe(undefined);
    expect(rt.openStreams).toBe(0);
  });
});
