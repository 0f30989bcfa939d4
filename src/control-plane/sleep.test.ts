/**
 * Environments that sleep (issue 32): an engine nobody has used for the idle time ends (its workerd
 * process exits and its memory returns to the machine), and the next request starts a new one on the
 * same committed data. An engine holding an open stream is in use and stays awake; a request that
 * arrives as its engine falls asleep is answered by the next engine, not refused. Real workerd, real
 * HTTP on loopback; waits are on conditions, never on timing goals.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_PATH } from '../modules/wire';
import { hostedTarget } from '../core/deploy';
import { databaseApp, deployOverHttp } from '../testing/control-plane-apps';
import { startControlPlane, type Started } from './main';
import { cookieOf, eventually, hostedRequest, signIn } from '../testing/control-plane';

const IDLE_MS = 1_500;

const SERVER = `import { defineServer, mutation, query } from 'platform/server';
export default defineServer({
  queries: { 'notes.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('notes').all()).map((note) => note.text) }) },
  mutations: { 'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => { await ctx.db.table('notes').insert({ text: input.text }); } }) },
});
`;

let work: string;
let started: Started;
let origin: string;
let appId: string;

const call = (kind: 'query' | 'mutation', name: string, input: unknown, cookie?: string) =>
  hostedRequest(origin, `/_platform/v0/${kind}/${name}`, { method: 'POST', body: JSON.stringify({ input }), ...(cookie ? { headers: { cookie } } : {}) });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The pid of the workerd process serving the environment (a pool's shared one, with nothing else in
 * it here, or its own), when that process is alive.
 */
function enginePid(): number | undefined {
  const pid = hosting().enginePid(appId, 'preview');
  return pid !== undefined && alive(pid) ? pid : undefined;
}

const hosting = () => started.plane.hosting;

// The pool's shared processes (the hosting's default), and a process for each environment (PLATFORM_HOSTING=process).
describe.each([
  ['in a pool of shared processes', {}],
  ['a process each', false],
] as const)('%s', (name, pool) => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'platform-sleep-'));
    started = await startControlPlane({ dataDir: join(work, 'data'), port: 0, engineIdleMs: IDLE_MS, hostingPool: pool });
    const token = await signIn(started.plane, 'builder');
    const files = databaseApp({ name: 'sleepy-notes', tables: { notes: { text: 'string' } }, server: SERVER, budgets: { liveConnections: 2 }, client: "document.body.textContent = 'notes';\n" });
    origin = await deployOverHttp(started.url, token, 'sleepy-notes', files);
    appId = hostedTarget(new URL(origin).host)!.appId;
  }, 180_000);

  afterAll(async () => {
    await started?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  describe(`an unused environment sleeps and wakes on its data (${name})`, () => {
    it('ends its engine after the idle time, and the next visit finds what was written', async () => {
      expect((await call('mutation', 'notes.add', { text: 'before sleep' })).status).toBe(200);
      const pid = enginePid();
      expect(pid).toBeDefined();
      expect(hosting().awake).toBe(1);

      // Nothing uses it: the sleeper ends the process.
      expect(await eventually(() => hosting().awake === 0 && !alive(pid!), 60_000)).toBe(true);

      const read = await call('query', 'notes.list', {});
      expect(read.status).toBe(200);
      expect(JSON.parse(read.text).result).toEqual(['before sleep']);
      const woken = enginePid();
      expect(woken).toBeDefined();
      expect(woken).not.toBe(pid);
      expect(hosting().awake).toBe(1);
    }, 120_000);

    it('stays awake while a live stream is open, and sleeps once it closes', async () => {
      const visit = await hostedRequest(origin, '/');
      const cookie = cookieOf(visit);
      const url = new URL(origin);
      let opened!: () => void;
      const open = new Promise<void>((resolve) => (opened = resolve));
      const stream = httpRequest({ host: '127.0.0.1', port: Number(url.port), path: LIVE_PATH, headers: { host: url.host, accept: 'application/x-ndjson', ...(cookie ? { cookie } : {}) } }, (response) => {
        expect(response.statusCode).toBe(200);
        response.resume();
        opened();
      });
      stream.on('error', () => undefined);
      stream.end();
      await open;
      const pid = enginePid();
      expect(pid).toBeDefined();

      // Several idle times pass with the stream open: the sleeper leaves it (asked directly too).
      await new Promise((done) => setTimeout(done, IDLE_MS * 3));
      expect(hosting().sleepIdle(0)).toBe(0);
      expect(hosting().awake).toBe(1);
      expect(enginePid()).toBe(pid);

      stream.destroy();
      expect(await eventually(() => hosting().awake === 0 && !alive(pid!), 60_000)).toBe(true);
    }, 120_000);

    it('answers a request that arrives as its engine falls asleep', async () => {
      expect((await call('mutation', 'notes.add', { text: 'second' })).status).toBe(200);
      const pid = enginePid();
      // The engine falls asleep and, in the same turn, a visitor calls.
      expect(hosting().sleepIdle(0)).toBe(1);
      const read = await call('query', 'notes.list', {});
      expect(read.status).toBe(200);
      expect(JSON.parse(read.text).result).toEqual(['before sleep', 'second']);
      // Its own process ended; in a pool, the lease was given back and a new one serves (the process
      // itself ends once nothing is leased in it for the idle time: the first test).
      if (hosting().pooled) expect(hosting().awake).toBe(1);
      else expect(alive(pid!)).toBe(false);
    }, 120_000);
  });
});
