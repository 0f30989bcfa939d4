/**
 * Hosted app code as an attacker: a hostile app deployed through the real CLI tries to reach Node, child
 * processes, the data directory, the network and the control plane, to spin forever, to hold 256 MiB
 * buffers and to have its stream read slowly by many clients; a local process sends forged and replayed
 * identities straight to the engines' ports. Each attempt is refused or contained, and the control
 * plane and a neighbouring app keep answering.
 */
import { randomBytes } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeCompiler } from '../adapters/node/compiler';
import type { Compiler } from '../core/build';
import { startControlPlane, type Started } from './main';
import { hostedTarget } from '../core/deploy';
import { BATCH_PATH, BATCH_URL, IDENTITY_HEADER, LOADED_PATH, READY_PATH, signIdentity } from '../core/host';
import { POOL_HEADER_PREFIX } from '../../worker/protocol/pool';
import type { Auth } from '../core/runtime';
import { HOSTILE } from '../testing/control-plane-apps';
import { approveOverHttp, cookieOf, enginePorts, eventually, hostedRequest, platformOverLoopback, sendHuge, slowReader, type SlowReader } from '../testing/control-plane';

const ROOT = join(import.meta.dirname, '../..');

let work: string;
let started: Started;
let shared: Compiler | undefined;
const compiler = async () => (shared ??= nodeCompiler());
let hostile: string;
let neighbour: string;

const platform = (cwd: string, args: string[], onStderr?: (text: string) => void) =>
  platformOverLoopback(args, { cwd, work, controlUrl: started.url, compiler, ...(onStderr ? { onStderr } : {}) });

const MiB = 1024 * 1024;
/** Each app environment's stored bytes, as the operator set them for this suite (default 1 GiB). */
const STORED_QUOTA = 2 * MiB;
/** An app whose endpoint writes 500 rows of 200 characters a call (some 200 KiB), as fast as it is called. */
const FILLER = `import { defineServer, endpoint } from 'platform/server';

const path = (batch: string) => batch.padEnd(200, '.');

export default defineServer({
  endpoints: {
    'POST /api/fill/:batch': endpoint<'POST /api/fill/:batch'>(async (_request, ctx) => {
      for (let i = 0; i < 500; i++) await ctx.db.table('visits').insert({ path: path(ctx.params.batch) });
      return new Response(null, { status: 201 });
    }),
    'GET /api/count/:batch': endpoint<'GET /api/count/:batch'>(async (_request, ctx) => Response.json({ count: await ctx.db.table('visits').count({ where: { path: path(ctx.params.batch) } }) })),
  },
});
`;
/** The hostile app's streams: this many slots, each up to 64 MiB. */
const STREAMS = 15;

function project(name: string, server?: string, budgets: Record<string, number> = {}): string {
  const dir = join(work, name);
  cpSync(join(ROOT, 'templates/endpoints'), dir, { recursive: true });
  const manifestPath = join(dir, 'app.manifest.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { budgets?: Record<string, number> };
  writeFileSync(manifestPath, JSON.stringify({ ...manifest, budgets: { ...manifest.budgets, ...budgets } }, null, 2));
  if (server) {
    writeFileSync(join(dir, 'src/server/index.ts'), server);
    writeFileSync(join(dir, 'src/client/main.tsx'), "document.body.textContent = 'hostile';\n");
    rmSync(join(dir, 'tests'), { recursive: true, force: true });
  }
  return dir;
}

const json = async (origin: string, path: string) => {
  const answer = await hostedRequest(origin, path);
  return { status: answer.status, body: JSON.parse(answer.text) as Record<string, unknown> };
};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-security-'));
  // A deadline short enough for the spinning handler, long enough for filling a 256 MiB buffer with
  // both cores busy (at 500 ms a fresh engine's first such call ran past it).
  // One shared process for both apps (the hostile one and its neighbour share it, until it is moved out),
  // under the same memory limit as a process of its own (512 MiB): the buffers held below pass it as
  // they pass an engine's of its own.
  started = await startControlPlane({ dataDir: join(work, 'data'), port: 0, devicePollMs: 20, handlerDeadlineMs: 5000, handlerGraceMs: 500, maxStoredBytes: STORED_QUOTA, hostingPool: { processes: 1, memoryLimitMb: 512 } });
  let approval: Promise<Response> | undefined;
  const login = await platform(work, ['auth', 'login'], (text) => {
    const code = /code ([A-Z]{4}-[A-Z]{4})/.exec(text)?.[1];
    if (!code || approval) return;
    approval = approveOverHttp(started.url, code, 'mallory', started.plane.secrets.operatorSecret);
  });
  expect(login.code).toBe(0);
  const deployed = await platform(project('hostile', HOSTILE, { liveConnections: STREAMS, streamedBytes: 64 * MiB }), ['deploy', '.']);
  expect(deployed.envelope.diagnostics).toEqual([]);
  hostile = deployed.envelope.result.url;
  neighbour = (await platform(project('neighbour'), ['deploy', '.'])).envelope.result.url;
}, 180_000);

afterAll(async () => {
  await started?.stop();
  rmSync(work, { recursive: true, force: true });
});

async function stillServing(): Promise<void> {
  expect((await fetch(`${started.url}/v0/health`)).status).toBe(200);
  expect((await json(neighbour, '/api/greet/x')).body).toEqual({ message: 'Hello, x!' });
}

describe('a hostile app is contained', () => {
  it('has no process, no Node built-ins, no code from strings', async () => {
    const { status, body } = await json(hostile, '/api/node');
    expect(status).toBe(200);
    expect(body).toMatchObject({ process: 'undefined', globalProcess: 'undefined', require: 'undefined', gc: 'undefined' });
    for (const key of ['getBuiltinModule', 'functionThis', 'childProcess']) expect(body[key]).toMatch(/^refused: /);
    expect(String(body.functionThis)).toContain('Code generation from strings disallowed');
    await stillServing();
  });

  it('import("node:fs") is refused before anything runs, and the app already deployed keeps serving', async () => {
    const importing = HOSTILE.replace("'GET /api/spin'", "'GET /api/fs': endpoint(async () => Response.json(Object.keys(await import('node:fs')))),\n    'GET /api/spin'");
    const refused = await platform(project('importing', importing), ['deploy', '.']);
    expect(refused.code).toBe(1);
    expect(JSON.stringify(refused.envelope.diagnostics)).toContain('server-runtime built-in module');
    expect((await json(hostile, '/api/node')).status).toBe(200);
    await stillServing();
  });

  it('cannot read the data directory: the control plane\'s records, the engines\' files, its own SQLite', async () => {
    await stillServing();
    const data = join(work, 'data');
    const appId = `app_${/^app-([a-z2-7]+)--/.exec(new URL(hostile).hostname)![1]}`;
    const pooled = [join(data, 'pool', 'shared-0', 'config.capnp'), join(data, 'pool', 'shared-0', 'storage', 'platform-pool-tenant')];
    for (const path of [join(data, 'records.sqlite'), join(data, 'engines', `${appId}.preview`, 'config.capnp'), join(data, 'apps', appId, 'preview'), ...pooled, '/etc/passwd']) {
      const { status, body } = await json(hostile, `/api/read?path=${encodeURIComponent(path)}`);
      expect(status, path).toBe(200);
      expect(body.fetchFile, path).toMatch(/^refused: /);
      expect(body.fs, path).toMatch(/^refused: /);
    }
  });

  it('cannot reach the control plane, a neighbour, its own or a neighbour\'s engine, or any address', async () => {
    await stillServing();
    // Every engine process's port: the apps' own, or the pool's shared processes both apps run in.
    const engines = enginePorts(join(work, 'data')).map((port) => `http://127.0.0.1:${port}/api/greet/x`);
    if (process.platform === 'linux') expect(engines.length).toBeGreaterThan(0);
    for (const target of [`${started.url}/v0/health`, `http://127.0.0.1:${started.port}/v0/apps`, neighbour, ...engines, 'http://10.0.0.1/', 'https://example.com/']) {
      const { body } = await json(hostile, `/api/fetch?url=${encodeURIComponent(target)}`);
      expect(body.fetch, target).toMatch(/^refused: /);
    }
    await stillServing();
  });

  it('keeps the engine\'s keys out of every file: they reach the engine through its environment, or the pool\'s source, only', async () => {
    await stillServing(); // both apps' engines are running, whatever ran before
    const { existsSync, readdirSync, readFileSync } = await import('node:fs');
    // A process of its own gets START through its environment; a pool's process gets the token it asks
    // the control plane's source with (for each lease's START), through its environment too.
    const configs = ['engines', 'pool'].flatMap((folder) => {
      const root = join(work, 'data', folder);
      return existsSync(root) ? readdirSync(root).map((name) => join(root, name, 'config.capnp')).filter((path) => existsSync(path)) : [];
    });
    expect(configs.some((path) => /fromEnvironment = "PLATFORM_(START|TOKEN)"/.test(readFileSync(path, 'utf8')))).toBe(true);
    for (const path of configs) expect(readFileSync(path, 'utf8'), path).not.toMatch(/identityKey|cursorSecret|"[0-9a-f]{64}"/);
    // Nor in the pool's storage: what its processes keep on disk is the environments' data.
    const pool = join(work, 'data', 'pool');
    for (const slot of existsSync(pool) ? readdirSync(pool) : []) {
      const storage = join(pool, slot, 'storage', 'platform-pool-tenant');
      for (const name of existsSync(storage) ? readdirSync(storage) : []) expect(readFileSync(join(storage, name)).includes('identityKey'), name).toBe(false);
    }
  });

  it('a handler that never yields is answered 504 and its engine restarted; its neighbour in the same process is answered meanwhile, and then no longer shares its process', async () => {
    const hosting = started.plane.hosting;
    const [hostileId, neighbourId] = [hostile, neighbour].map((origin) => hostedTarget(new URL(origin).host)!.appId);
    await stillServing();
    expect((await json(hostile, '/api/node')).status).toBe(200);
    expect(hosting.enginePid(hostileId!, 'preview')).toBe(hosting.enginePid(neighbourId!, 'preview'));
    const began = Date.now();
    const spinning = json(hostile, '/api/spin');
    await new Promise((done) => setTimeout(done, 200));
    // The neighbour, held behind the spin in their shared process, is answered once the pool ends it.
    const meanwhile = await hostedRequest(neighbour, '/api/greet/x');
    expect([200, 503]).toContain(meanwhile.status);
    const spun = await spinning;
    expect(spun.status).toBe(504);
    expect(spun.body).toMatchObject({ error: { code: 'handler_deadline_exceeded' } });
    // Not a hang: the watchdog answered (how soon is the bench's to measure; a loaded machine is slow).
    expect(Date.now() - began).toBeLessThan(20_000);
    await stillServing();
    expect((await json(hostile, '/api/node')).status).toBe(200);
    // The hostile app now runs in a process of its own: it can stall its neighbour no more.
    expect(hosting.enginePid(hostileId!, 'preview')).not.toBe(hosting.enginePid(neighbourId!, 'preview'));
  });

  it('a 1.5 GB chunked body to the app is answered 413 past its requestBytes, the control plane\'s memory flat', async () => {
    const origin = new URL(hostile);
    const total = 1536 * 1024 * 1024;
    const before = process.memoryUsage().rss;
    const sent = await sendHuge(started.port, '/api/node', total, { host: origin.host });
    expect(sent.status).toBe(413);
    expect(sent.written).toBeLessThan(total);
    expect((sent.peakRss - before) / 1024 / 1024).toBeLessThan(300);
    await stillServing();
  }, 60_000);

  it('256 MiB buffers held across requests: the engine is restarted past its memory limit', async () => {
    // Sent back to back: memory is judged as each answer is handed over, not by a timer a busy machine
    // runs late (which failed the second call with 503, or let a third buffer be held). The second call
    // holds 512 MiB and more, is answered, and the engine is ended then: the third meets a fresh one.
    const answers: Array<{ status: number; held: unknown }> = [];
    for (let i = 0; i < 4; i++) {
      const answer = await json(hostile, '/api/hold');
      answers.push({ status: answer.status, held: answer.body.held });
    }
    expect(answers).toEqual([1, 2, 1, 2].map((held) => ({ status: 200, held })));
    await stillServing();
  }, 60_000);

  it('fifteen slow readers of a 64 MiB stream: the control plane\'s memory stays flat, other apps answer, and closing them frees the slots', async () => {
    await stillServing();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    // From five sources, three each: one visitor holds at most a share of the slots (the next test).
    const readers = Array.from({ length: STREAMS }, (_, i) => slowReader(hostile, '/api/stream/64', { localAddress: `127.0.${20 + Math.floor(i / 3)}.1` }));
    try {
      // Read a little of each (16 KiB every 50 ms) while the app would push 15 × 64 MiB if nothing held it back.
      const trickle = setInterval(() => readers.forEach((reader) => reader.take(16 * 1024)), 50);
      try {
        expect(await eventually(() => readers.every((reader) => reader.status() === 200))).toBe(true);
        // Every slot is held: a sixteenth stream is refused, so the fifteen are open at once.
        const refused = await json(hostile, '/api/stream/1');
        expect(refused.status).toBe(503);
        expect(refused.body).toMatchObject({ error: { code: 'stream_connection_budget_exceeded' } });
        await stillServing();
        // Held open long enough for the app to have pushed far more than the bound below, were it not held back.
        await new Promise((done) => setTimeout(done, 4000));
        await stillServing();
        // The app itself answers too, and every stream is flowing, slowly, and still open.
        expect((await json(hostile, '/api/node')).status).toBe(200);
        expect(readers.every((reader) => reader.read() > 64 * 1024 && !reader.closed())).toBe(true);
      } finally {
        clearInterval(trickle);
      }
    } finally {
      clearInterval(sampler);
      for (const reader of readers) reader.close();
    }
    // The readers took a few MiB of the 960 MiB offered: the control plane held back the rest, not buffered it
    // (buffering it, as an early version did, grows this process by some 900 MB here).
    expect((peak - before) / MiB).toBeLessThan(300);
    // The slow connections are released: the slots come back and a new stream is admitted.
    const admitted = await eventually(async () => {
      const probe = slowReader(hostile, '/api/stream/1');
      try {
        if (!(await eventually(() => (probe.take(1 << 20), probe.status() !== 0 || probe.closed()), 10_000))) return false;
        return probe.status() === 200;
      } finally {
        probe.close();
      }
    });
    expect(admitted).toBe(true);
    await stillServing();
  }, 90_000);

  it('one visitor holds at most its share of the stream slots, however many guest cookies it mints; another visitor still gets one', async () => {
    await stillServing();
    const attacker = '127.0.9.1';
    const status = async (reader: SlowReader) => ((await eventually(() => (reader.take(1 << 20), reader.status() !== 0 || reader.closed()), 10_000)) ? reader.status() : 0);
    const held: SlowReader[] = [];
    try {
      // Cookieless, so every answer mints a new guest: the attacker opens streams until refused. The
      // slots of the test before come back once the engine sees those connections go.
      expect(await eventually(async () => {
        const reader = slowReader(hostile, '/api/stream/64', { localAddress: attacker });
        if ((await status(reader)) === 200) return (held.push(reader), true);
        reader.close();
        return false;
      })).toBe(true);
      for (let i = 1; i < STREAMS; i++) {
        const reader = slowReader(hostile, '/api/stream/64', { localAddress: attacker });
        held.push(reader);
        if ((await status(reader)) !== 200) break;
      }
      // A quarter of the 15 slots (3), then the spec's refusal.
      expect(held.map((reader) => reader.status())).toEqual([200, 200, 200, 503]);
      const refused = await hostedRequest(hostile, '/api/stream/1', { localAddress: attacker });
      expect(refused.status).toBe(503);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(JSON.parse(refused.text)).toMatchObject({ protocol: 'platform.runtime.v0', error: { code: 'stream_connection_budget_exceeded' } });
      // Guest identities minted beforehand (each page load gives a new one) are the same visitor.
      for (let i = 0; i < 3; i++) {
        const cookie = cookieOf(await hostedRequest(hostile, '/', { localAddress: attacker }));
        expect(cookie).toMatch(/^__platform_guest=/);
        const minted = await hostedRequest(hostile, '/api/stream/1', { localAddress: attacker, headers: { cookie: cookie! } });
        expect(minted.status).toBe(503);
        expect(JSON.parse(minted.text)).toMatchObject({ error: { code: 'stream_connection_budget_exceeded' } });
      }
      // Everyone else still gets a slot: another source, and a plain request of the app.
      const other = slowReader(hostile, '/api/stream/64', { localAddress: '127.0.10.1' });
      held.push(other);
      expect(await status(other)).toBe(200);
      await stillServing();
    } finally {
      for (const reader of held) reader.close();
    }
  }, 90_000);

  it('a writing endpoint past the stored-bytes quota is refused whole with 507 storage_quota_exceeded; the app still reads, other apps still write', async () => {
    const filler = (await platform(project('filler', FILLER), ['deploy', '.'])).envelope.result.url as string;
    const statuses: number[] = [];
    let refused: { status: number; text: string } | undefined;
    for (let batch = 0; batch < 40 && !refused; batch++) {
      const answer = await hostedRequest(filler, `/api/fill/b${batch}`, { method: 'POST', body: '' });
      statuses.push(answer.status);
      if (answer.status !== 201) refused = answer;
    }
    // A few calls fit in 2 MiB (each adds some 200 KiB); without a quota all 40 (8 MiB) went in.
    const kept = statuses.length - 1;
    expect(kept).toBeGreaterThan(0);
    expect(refused?.status).toBe(507);
    expect(JSON.parse(refused!.text)).toMatchObject({ protocol: 'platform.runtime.v0', error: { code: 'storage_quota_exceeded', message: expect.stringContaining(`over its quota of ${STORED_QUOTA} bytes`) } });
    // Refused whole: none of that call's 500 rows; every row of the calls before is there, and readable.
    expect(JSON.parse((await hostedRequest(filler, `/api/count/b${kept}`)).text)).toEqual({ count: 0 });
    expect(JSON.parse((await hostedRequest(filler, `/api/count/b${kept - 1}`)).text)).toEqual({ count: 500 });
    // Still refused on the next try; the neighbour (its own quota) still writes, and answers.
    expect((await hostedRequest(filler, `/api/fill/again`, { method: 'POST', body: '' })).status).toBe(507);
    expect((await hostedRequest(neighbour, '/api/visits/after-the-filler', { method: 'POST', body: '' })).status).toBe(201);
    await stillServing();
  }, 120_000);

  describe('a local process sends requests straight to an engine\'s loopback port', () => {
    const data = () => join(work, 'data');
    const guest = { appUserId: 'guest:forged', kind: 'guest', roles: [], permissions: [], workspaceIds: [], sessionId: 'forged', id: 'guest:forged' } as unknown as Auth;
    const visits = async (path: string) => {
      const answer = await hostedRequest(neighbour, '/_platform/v0/query/visits.count', { method: 'POST', body: JSON.stringify({ input: { path } }) });
      expect(answer.status).toBe(200);
      return (JSON.parse(answer.text) as { result: number }).result;
    };

    /**
     * A genuine identity header, taken as a sniffer on loopback would: from the control plane's own
     * request to the engine, seen on Node's diagnostics channels (its HTTP client's, and fetch's).
     */
    async function captured(origin: string, path: string, options: Parameters<typeof hostedRequest>[2] = {}): Promise<{ header: string; url: string; pool: Record<string, string> }> {
      let seen: { header: string; url: string; pool: Record<string, string> } | undefined;
      const fromHttp = (message: unknown) => {
        const request = (message as { request: ClientRequest }).request;
        const header = request.getHeader(IDENTITY_HEADER);
        // A pool's process is also told which environment and lease: sniffed the same way (they are not secrets).
        const pool = Object.fromEntries(Object.entries(request.getHeaders()).filter(([name]) => name.startsWith(POOL_HEADER_PREFIX)).map(([name, value]) => [name, String(value)]));
        if (typeof header === 'string' && !seen) seen = { header, url: `${request.protocol}//${String(request.getHeader('host'))}${request.path}`, pool };
      };
      const fromFetch = (message: unknown) => {
        const request = (message as { request: { origin: string; path: string; headers: string[] | string } }).request;
        const headers = Array.isArray(request.headers) ? request.headers : request.headers.split('\r\n').flatMap((line) => line.split(': ', 2));
        const at = headers.findIndex((name, i) => i % 2 === 0 && name.toLowerCase() === IDENTITY_HEADER);
        if (at >= 0 && !seen) seen = { header: headers[at + 1]!, url: `${request.origin}${request.path}`, pool: {} };
      };
      subscribe('http.client.request.start', fromHttp);
      subscribe('undici:request:create', fromFetch);
      try {
        await hostedRequest(origin, path, options);
      } finally {
        unsubscribe('http.client.request.start', fromHttp);
        unsubscribe('undici:request:create', fromFetch);
      }
      if (!seen) throw new Error(`no identity seen for ${path}`);
      return seen;
    }

    const straight = async (port: number, path: string, header?: string, method = 'POST', pool: Record<string, string> = {}) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { ...pool, ...(header === undefined ? {} : { [IDENTITY_HEADER]: header }) } });
      return { status: response.status, body: (await response.json().catch(() => ({}))) as Record<string, unknown> };
    };

    it.skipIf(process.platform !== 'linux')('no identity, a wrong key, a tampered payload, another app\'s header: 403 identity_refused, and no handler runs', async () => {
      await stillServing();
      const genuine = await captured(neighbour, '/api/greet/x');
      const fromHostile = await captured(hostile, '/api/node');
      // The ports the control plane talks to are ones a local process finds from the data directory.
      const port = Number(new URL(genuine.url).port);
      const hostilePort = Number(new URL(fromHostile.url).port);
      expect(enginePorts(data())).toContain(port);
      expect(enginePorts(data())).toContain(hostilePort);
      const pool = genuine.pool;

      const target = `${neighbour}/api/visits/forged`;
      const [payload, tag] = [genuine.header.slice(0, genuine.header.lastIndexOf('.')), genuine.header.slice(genuine.header.lastIndexOf('.') + 1)];
      const identity = JSON.parse(decodeURIComponent(payload)) as { auth: Record<string, unknown>; url: string; expiresAt: number };
      const tampered = (change: Record<string, unknown>) => `${encodeURIComponent(JSON.stringify({ ...identity, ...change }))}.${tag}`;
      const attempts: Array<[string, string | undefined]> = [
        ['no identity', undefined],
        ['an empty identity', ''],
        ['a signature of garbage', `${encodeURIComponent(JSON.stringify({ auth: guest, url: target, expiresAt: Date.now() + 60_000 }))}.${'0'.repeat(64)}`],
        ['an identity signed under a wrong key', signIdentity(randomBytes(32), { auth: guest, url: target, method: 'POST', sequence: 1 })],
        ['the genuine header with another URL', tampered({ url: target })],
        ['the genuine header as another persona with roles', tampered({ url: target, auth: { ...identity.auth, appUserId: 'user:alice', kind: 'user', roles: ['admin'], permissions: ['*'] } })],
        ['the genuine header kept alive', tampered({ url: target, expiresAt: identity.expiresAt + 3_600_000 })],
        ['a genuine header of another app (its engine, its key)', fromHostile.header],
      ];
      for (const [what, header] of attempts) {
        const answer = await straight(port, '/api/visits/forged', header, 'POST', pool);
        expect(answer.status, what).toBe(403);
        expect(answer.body, what).toMatchObject({ error: { code: 'identity_refused' } });
      }
      // The ready and loaded paths too (unsigned, or signed under another engine's key), and the hostile engine the same way.
      expect((await straight(port, READY_PATH, undefined, 'GET', pool)).status).toBe(403);
      expect((await straight(port, LOADED_PATH, undefined, 'GET', pool)).status).toBe(403);
      expect((await straight(port, LOADED_PATH, signIdentity(randomBytes(32), { auth: guest, url: `http://ready.localhost${LOADED_PATH}`, method: 'GET', sequence: 9 }), 'GET', pool)).status).toBe(403);
      expect((await straight(hostilePort, '/api/node', signIdentity(randomBytes(32), { auth: guest, url: `${hostile}/api/node`, method: 'GET', sequence: 1 }), 'GET', fromHostile.pool)).status).toBe(403);
      // In a pool, the neighbour's lease named with the hostile app's genuine header: still its own key that decides.
      if (Object.keys(pool).length) expect((await straight(hostilePort, '/api/visits/forged', fromHostile.header, 'POST', pool)).status).toBe(403);
      // No handler ran: nothing was written.
      expect(await visits('forged')).toBe(0);
      // The check can fail: the same write through the control plane is counted.
      expect((await hostedRequest(neighbour, '/api/visits/genuine', { method: 'POST', body: '{}' })).status).toBe(201);
      expect(await visits('genuine')).toBe(1);
      await stillServing();
    });

    it.skipIf(process.platform !== 'linux')('a genuine header replayed to another path never runs the handler of the path asked', async () => {
      await stillServing();
      const genuine = await captured(neighbour, '/api/greet/x');
      const port = Number(new URL(genuine.url).port);
      // As a write: another method than the one signed. As the same GET: its sequence number was used.
      const replayed = await straight(port, '/api/visits/replayed', genuine.header, 'POST', genuine.pool);
      expect(replayed.status).toBe(403);
      expect(await visits('replayed')).toBe(0);
      const asGet = await straight(port, '/api/visits/replayed', genuine.header, 'GET', genuine.pool);
      expect(asGet.status, JSON.stringify(asGet)).toBe(403);
    });

    it.skipIf(process.platform !== 'linux')('a batch of calls sent straight to an engine needs the control plane\'s signature of that batch: as another persona, another body or replayed, it is refused whole', async () => {
      await stillServing();
      // A genuine batch, sniffed from the control plane's requests while calls come at once (each answered as alone).
      let batch: { header: string; port: number; pool: Record<string, string>; body: string } | undefined;
      const fromHttp = (message: unknown) => {
        const request = (message as { request: ClientRequest }).request;
        if (request.path !== BATCH_PATH || batch) return;
        const header = String(request.getHeader(IDENTITY_HEADER));
        const pool = Object.fromEntries(Object.entries(request.getHeaders()).filter(([name]) => name.startsWith(POOL_HEADER_PREFIX)).map(([name, value]) => [name, String(value)]));
        batch = { header, port: Number(request.getHeader('host')?.toString().split(':')[1]), pool, body: '' };
      };
      subscribe('http.client.request.start', fromHttp);
      try {
        for (let round = 0; round < 5 && !batch; round++) {
          const answers = await Promise.all(Array.from({ length: 32 }, (_, i) => hostedRequest(neighbour, '/_platform/v0/query/visits.count', { method: 'POST', body: JSON.stringify({ input: { path: `batch-${i}` } }) })));
          for (const answer of answers) expect(JSON.parse(answer.text)).toEqual({ result: 0 });
        }
      } finally {
        unsubscribe('http.client.request.start', fromHttp);
      }
      expect(batch, 'the control plane sent calls together').toBeDefined();
      const { header, port, pool } = batch!;
      const admin = { appUserId: 'user:alice', kind: 'user', roles: ['admin'], permissions: ['*'], workspaceIds: [], sessionId: 'forged', id: 'user:alice' } as unknown as Auth;
      const forged = JSON.stringify({ calls: [{ auth: admin, url: `${neighbour}/_platform/v0/query/visits.count`, body: JSON.stringify({ input: { path: 'forged' } }) }] });
      const [payload, tag] = [header.slice(0, header.lastIndexOf('.')), header.slice(header.lastIndexOf('.') + 1)];
      const identity = JSON.parse(decodeURIComponent(payload)) as Record<string, unknown>;
      const visitor = await captured(neighbour, '/_platform/v0/query/visits.count', { method: 'POST', body: JSON.stringify({ input: { path: 'x' } }) });
      const [visitorPayload, visitorTag] = [visitor.header.slice(0, visitor.header.lastIndexOf('.')), visitor.header.slice(visitor.header.lastIndexOf('.') + 1)];
      const attempts: Array<[string, string | undefined]> = [
        ['no identity', undefined],
        ['the genuine batch header over another body (replayed, too)', header],
        ['the genuine batch header with its sequence changed', `${encodeURIComponent(JSON.stringify({ ...identity, sequence: 10_000_000 }))}.${tag}`],
        ['a visitor\'s genuine header naming the batch path', `${encodeURIComponent(JSON.stringify({ ...(JSON.parse(decodeURIComponent(visitorPayload)) as object), url: BATCH_URL }))}.${visitorTag}`],
        ['a batch signed under a wrong key', signIdentity(randomBytes(32), { auth: { kind: 'batch' } as unknown as Auth, url: BATCH_URL, method: 'POST', body: new TextEncoder().encode(forged), sequence: 10_000_001 })],
      ];
      for (const [what, attempt] of attempts) {
        const response = await fetch(`http://127.0.0.1:${port}${BATCH_PATH}`, { method: 'POST', headers: { ...pool, ...(attempt === undefined ? {} : { [IDENTITY_HEADER]: attempt }) }, body: forged });
        expect(response.status, what).toBe(403);
        expect(await response.json(), what).toMatchObject({ error: { code: 'identity_refused' } });
      }
      // A visitor cannot name the batch path through the control plane either: /__platform/ is the platform's.
      const through = await hostedRequest(neighbour, BATCH_PATH, { method: 'POST', body: forged });
      expect(through.status).not.toBe(200);
      expect(through.text).not.toContain('"result"');
      await stillServing();
    });

    // The signed identity names the method, the body's hash and a sequence number the engine accepts once.
    it.skipIf(process.platform !== 'linux')('a captured header of a write, replayed, is refused and writes nothing again', async () => {
      await stillServing();
      const genuine = await captured(neighbour, '/api/visits/once', { method: 'POST', body: '{}' });
      expect(await visits('once')).toBe(1);
      const port = Number(new URL(genuine.url).port);
      const replayed = await straight(port, '/api/visits/once', genuine.header, 'POST', genuine.pool);
      expect(replayed.status).toBe(403);
      expect(await visits('once')).toBe(1);
    });
  });
});
