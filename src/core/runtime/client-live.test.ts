/**
 * The client module's side of live updates (QueryClient, the engine behind useQuery and mutation):
 * which mounted queries re-run after this client's own mutation, after another client's (over the
 * live-update stream) and after invalidateQueries, and that a budget of 0 means no stream. Each
 * client is a QueryClient whose host sends the wire routes to one AppRuntime as one persona.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nodeSqlDriverFactory } from '../../adapters/node/sqljs';
import type { Manifest } from '../manifest';
import { testClock } from './clock';
import type { Limits } from './limits';
import { personaAuth, type PersonaName } from './personas';
import { AppRuntime } from './runtime';
import { QueryClient, type CallSettled } from '../../modules/client';
import { defineServer, endpoint, mutation, query } from '../../modules/server';

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
  },
  mutations: {
    'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => { await ctx.db.table('notes').insert({ text: input.text }); } }),
    'tags.add': mutation({ input: { label: 'string' }, handler: async (ctx, input) => { await ctx.db.table('tags').insert({ label: input.label }); } }),
  },
  endpoints: {
    'POST /api/notes': endpoint(async (_request, ctx) => { await ctx.db.table('notes').insert({ text: 'by an endpoint' }); return new Response(null, { status: 204 }); }),
  },
});

const clients: QueryClient[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

function runtime(liveConnections: number, limits: Partial<Limits> = {}): AppRuntime {
  return new AppRuntime({ manifest: MANIFEST, definition, driver: factory(), clock: testClock(), limits: { liveConnections, ...limits } });
}

/** A page of the app as `persona`: its QueryClient over the runtime's wire routes. */
function page(rt: AppRuntime, persona: PersonaName): QueryClient {
  const auth = personaAuth(MANIFEST.name, persona, `session-${persona}`);
  const client = new QueryClient(() => ({ fetch: (path, init) => rt.fetch(auth, new Request(new URL(path, 'http://app.test'), init)) }));
  clients.push(client);
  return client;
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
