/**
 * Live updates of a hosted app, end to end over loopback: visitors (guests, each with its own cookie)
 * open the live-update stream through the control plane to the app's workerd engine, where its Durable
 * Object keeps the open connections. A mutation by one visitor sends an event to the connections that
 * hold a query reading what it wrote, and to no other; a connection past `liveConnections` is refused;
 * a closed one frees its slot. No assertion is about time: "no event" is shown by the next event on
 * that stream being a later one (a stream keeps its order).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_BUDGET_HEADER, LIVE_CONNECTION_HEADER, LIVE_PATH, READ_HEADER, WROTE_HEADER, parseLiveEvent, type LiveEvent } from '../modules/wire';
import { build, databaseApp, deployBody } from '../testing/control-plane-apps';
import { startControlPlane, type Started } from './main';
import { cookieOf, eventually, hostedRequest, signIn } from '../testing/control-plane';

const SERVER = `import { defineServer, endpoint, mutation, query } from 'platform/server';
export default defineServer({
  queries: {
    'notes.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('notes').all()).map((note) => note.text) }),
    'tags.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('tags').all()).map((tag) => tag.label) }),
  },
  mutations: {
    'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => { await ctx.db.table('notes').insert({ text: input.text }); } }),
    'tags.add': mutation({ input: { label: 'string' }, handler: async (ctx, input) => { await ctx.db.table('tags').insert({ label: input.label }); } }),
  },
  endpoints: {
    'POST /api/notes': endpoint(async (_request, ctx) => { await ctx.db.table('notes').insert({ text: 'by an endpoint' }); return new Response(null, { status: 204 }); }),
  },
});
`;

function liveApp(liveConnections: number): Record<string, string> {
  return databaseApp({ name: 'live-notes', tables: { notes: { text: 'string' }, tags: { label: 'string' } }, server: SERVER, budgets: { liveConnections }, client: "document.body.textContent = 'live';\n" });
}

let work: string;
let started: Started;
let origin: string;
let quiet: string;

async function deploy(token: string, name: string, files: Record<string, string>): Promise<string> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const created = (await (await fetch(`${started.url}/v0/apps`, { method: 'POST', headers, body: JSON.stringify({ name }) })).json()) as { app: { id: string; urls: { preview: string } } };
  const answer = await fetch(`${started.url}/v0/apps/${created.app.id}/deployments`, { method: 'POST', headers, body: JSON.stringify(deployBody(await build(files))) });
  if (answer.status !== 201) throw new Error(`deploy of ${name} failed: ${await answer.text()}`);
  return created.app.urls.preview;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-live-'));
  started = await startControlPlane({ dataDir: join(work, 'data'), port: 0 });
  const token = await signIn(started.plane, 'builder');
  origin = await deploy(token, 'live-notes', liveApp(2));
  quiet = await deploy(token, 'quiet-notes', liveApp(0));
}, 180_000);

afterAll(async () => {
  await started?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** An open live-update stream of one visitor, read event by event (pings skipped). */
interface Stream {
  status: number;
  headers: IncomingMessage['headers'];
  /** The error body of a refusal. */
  text: string;
  next(): Promise<LiveEvent | undefined>;
  close(): void;
}

function openStream(at: string, cookie: string | undefined): Promise<Stream> {
  const url = new URL(at);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: Number(url.port), path: LIVE_PATH, headers: { host: url.host, accept: 'application/x-ndjson', ...(cookie ? { cookie } : {}) } }, (response) => {
      const events: LiveEvent[] = [];
      const waiters: Array<(event: LiveEvent | undefined) => void> = [];
      let buffer = '';
      let ended = false;
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (response.statusCode !== 200) return void (text += chunk);
        buffer += chunk;
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const event = parseLiveEvent(buffer.slice(0, newline));
          buffer = buffer.slice(newline + 1);
          if (!event || event.kind === 'ping') continue;
          const waiter = waiters.shift();
          if (waiter) waiter(event);
          else events.push(event);
        }
      });
      const end = () => {
        ended = true;
        for (const waiter of waiters.splice(0)) waiter(undefined);
      };
      response.on('end', end);
      response.on('error', end);
      response.on('close', end);
      const stream: Stream = {
        status: response.statusCode ?? 0,
        headers: response.headers,
        get text() {
          return text;
        },
        next: () => (events.length ? Promise.resolve(events.shift()) : ended ? Promise.resolve(undefined) : new Promise((done) => waiters.push(done))),
        close: () => request.destroy(),
      };
      if (response.statusCode === 200) resolve(stream);
      else response.on('end', () => resolve(stream));
    });
    request.on('error', reject);
    request.end();
  });
}

/** A visitor: its guest cookie (from a first request) and its calls, sent with its live connection's id. */
class Visitor {
  stream: Stream | undefined;
  connection: string | undefined;

  private constructor(
    readonly at: string,
    readonly cookie: string,
  ) {}

  static async arrive(at: string): Promise<Visitor> {
    const first = await hostedRequest(at, '/_platform/v0/query/notes.list', { method: 'POST', body: '{"input":{}}' });
    expect(first.status).toBe(200);
    return new Visitor(at, cookieOf(first)!);
  }

  async connect(): Promise<void> {
    this.stream = await openStream(this.at, this.cookie);
    expect(this.stream.status).toBe(200);
    expect(this.stream.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const open = await this.stream.next();
    if (open?.kind !== 'open') throw new Error(`expected the open event, got ${JSON.stringify(open)}`);
    this.connection = open.connection;
  }

  send(kind: 'query' | 'mutation', name: string, input: unknown = {}) {
    return hostedRequest(this.at, `/_platform/v0/${kind}/${name}`, {
      method: 'POST',
      body: JSON.stringify({ input }),
      headers: { cookie: this.cookie, ...(this.connection ? { [LIVE_CONNECTION_HEADER]: this.connection } : {}) },
    });
  }
}

describe('live updates of a hosted app', () => {
  it('a mutation sends an event to the connections holding an affected query, names the query and tables, and to no other; past liveConnections a connection is refused', async () => {
    const reader = await Visitor.arrive(origin);
    const other = await Visitor.arrive(origin);
    const writer = await Visitor.arrive(origin);
    await reader.connect();
    await other.connect();
    const heldNotes = await reader.send('query', 'notes.list');
    expect([heldNotes.status, heldNotes.headers[READ_HEADER]]).toEqual([200, 'notes']);
    expect((await other.send('query', 'tags.list')).headers[READ_HEADER]).toBe('tags');

    // A third connection is past the budget of 2.
    const third = await openStream(origin, writer.cookie);
    expect(third.status).toBe(503);
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect(third.headers[LIVE_BUDGET_HEADER]).toBe('2');
    expect(JSON.parse(third.text)).toMatchObject({ protocol: 'platform.runtime.v0', error: { code: 'stream_connection_budget_exceeded' } });

    const wrote = await writer.send('mutation', 'notes.add', { text: 'hello' });
    expect([wrote.status, wrote.headers[WROTE_HEADER]]).toEqual([200, 'notes']);
    expect(await reader.stream!.next()).toEqual({ protocol: 'platform.live.v0', kind: 'invalidate', queries: ['notes.list'], tables: ['notes'], storage: false });
    expect(JSON.parse((await reader.send('query', 'notes.list')).text)).toEqual({ result: ['hello'] });

    // The other connection's query read tags only: its first event is the tags write that follows.
    await writer.send('mutation', 'tags.add', { label: 'red' });
    expect(await other.stream!.next()).toMatchObject({ kind: 'invalidate', queries: ['tags.list'], tables: ['tags'] });

    // An endpoint's write sends nothing: the reader's next event is the mutation's after it.
    expect((await hostedRequest(origin, '/api/notes', { method: 'POST', body: '', headers: { cookie: writer.cookie } })).status).toBe(204);
    await writer.send('mutation', 'notes.add', { text: 'again' });
    expect(await reader.stream!.next()).toMatchObject({ kind: 'invalidate', queries: ['notes.list'] });
    reader.stream!.close();
    other.stream!.close();
  }, 60_000);

  it("the page's document makes its visitor a guest: its first calls, sent at once, are that guest's, and its live stream refreshes its queries", async () => {
    // A browser loads the document, then its scripts send their first calls together (the queries, the
    // live stream, the auth state): each with the cookie the document set. Minted by those calls
    // instead, each made a guest of its own, and the stream belonged to another guest than the queries.
    const document = await hostedRequest(origin, '/', { method: 'GET' });
    expect([document.status, String(document.headers['content-type'])]).toEqual([200, expect.stringMatching(/^text\/html/)]);
    const cookie = cookieOf(document);
    expect(cookie).toMatch(/^__platform_guest=/);
    expect(String(document.headers['set-cookie'])).toMatch(/HttpOnly/);
    const again = await hostedRequest(origin, '/', { method: 'GET', headers: { cookie: cookie! } });
    expect(again.headers['set-cookie'], 'a guest already is one').toBeUndefined();

    // The slots of the test before come back once the engine sees its connections go.
    let stream!: Stream;
    expect(
      await eventually(async () => {
        stream = await openStream(origin, cookie);
        return stream.status === 200;
      }),
    ).toBe(true);
    expect(stream.headers['set-cookie']).toBeUndefined();
    const open = await stream.next();
    if (open?.kind !== 'open') throw new Error(`expected the open event, got ${JSON.stringify(open)}`);
    const held = await hostedRequest(origin, '/_platform/v0/query/notes.list', { method: 'POST', body: '{"input":{}}', headers: { cookie: cookie!, [LIVE_CONNECTION_HEADER]: open.connection } });
    expect([held.status, held.headers[READ_HEADER], held.headers['set-cookie']]).toEqual([200, 'notes', undefined]);
    const writer = await Visitor.arrive(origin);
    await writer.send('mutation', 'notes.add', { text: 'seen by the page' });
    expect(await stream.next()).toMatchObject({ kind: 'invalidate', queries: ['notes.list'], tables: ['notes'] });
    stream.close();
  }, 60_000);

  it('closed connections free their slots for other visitors', async () => {
    const visitors = [await Visitor.arrive(origin), await Visitor.arrive(origin)];
    // The slots come back once the engine sees the connections go (through the control plane's proxy):
    // those of the test before, then these.
    for (const round of [1, 2]) {
      for (const visitor of visitors) {
        expect(await eventually(async () => {
          const stream = await openStream(origin, visitor.cookie);
          if (stream.status !== 200) return false;
          visitor.stream = stream;
          return true;
        }), `round ${round}`).toBe(true);
        expect((await visitor.stream!.next())?.kind).toBe('open');
      }
      for (const visitor of visitors) visitor.stream!.close();
    }
  }, 90_000);

  it('with the default budget of 0 there is no stream', async () => {
    const visitor = await Visitor.arrive(quiet);
    const refused = await openStream(quiet, visitor.cookie);
    expect([refused.status, refused.headers[LIVE_BUDGET_HEADER]]).toEqual([503, '0']);
    expect(JSON.parse(refused.text)).toMatchObject({ error: { code: 'stream_connection_budget_exceeded' } });
  }, 60_000);
});
