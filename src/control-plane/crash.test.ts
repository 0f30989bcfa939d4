/**
 * Nothing acknowledged is lost when a process is killed under load. The control plane runs as its own
 * process (`node --import tsx main.ts`, as `npm run control-plane` runs it) so that it can be killed
 * with SIGKILL: no close method, no exit handler, no flush. Eight connections send mutations without
 * pause; every one answered 200 is acknowledged, and every acknowledged row must be there afterwards
 * (unacknowledged ones may or may not be). Two kills: the control plane itself (then a restart on the
 * same data directory), and the app's workerd engine (found by its pid file) with the control plane
 * running. Assertions are about data, never about time: waits are on conditions, with room for a
 * loaded machine. Both stories run twice: with the records in the data directory's SQLite file, and in
 * PostgreSQL (`--database-url`).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hostedOrigin } from '../core/deploy';
import { build, databaseApp, deployBody, type BuiltApp } from '../testing/control-plane-apps';
import { engineProcesses, signInOverHttp, startPlaneProcess, stateOf, type PlaneProcess } from '../testing/control-plane';
import { testDatabase } from '../testing/postgres';

/** Writers sending mutations at once, each on its own keep-alive connection. */
const WRITERS = 8;
/** Acknowledged writes before a kill, and after it (story 2: written by the fresh engine). */
const BEFORE_KILL = 300;
const AFTER_KILL = 100;
/** Only tells an answer from a hang; never a timing goal. */
const HANG_MS = 30_000;

const SERVER = (version: number) => `import { defineServer, mutation, query } from 'platform/server';
export default defineServer({
  queries: {
    'notes.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('notes').all()).map((note) => note.text) }),
    'app.version': query({ input: {}, handler: async () => ${version} }),
  },
  mutations: {
    'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => { await ctx.db.table('notes').insert({ text: input.text }); } }),
  },
});
`;

function notesApp(version: number): Record<string, string> {
  return databaseApp({ name: 'crash-notes', tables: { notes: { text: 'string' } }, server: SERVER(version), budgets: { queryRows: 10000 }, client: `document.body.textContent = 'notes v${version}';\n` });
}

type Plane = PlaneProcess;

/** Control planes this file started that have not exited: afterAll ends them, whatever failed. */
const children = new Map<ChildProcess, Promise<void>>();

async function startPlane(dataDir: string, args: readonly string[]): Promise<Plane> {
  const plane = await startPlaneProcess(dataDir, args);
  children.set(plane.child, plane.exited);
  void plane.exited.then(() => children.delete(plane.child));
  return plane;
}

async function api(plane: Plane, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const answer = await fetch(`${plane.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: answer.status, body: await answer.json() };
}

interface Answer {
  status: number;
  text: string;
}

/** One request to a hosted origin on 127.0.0.1 with its Host; a transport error (the control plane gone) is status 0, a hang is an error. */
function hosted(origin: string, path: string, options: { body?: string; agent?: Agent } = {}): Promise<Answer> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: Number(url.port),
        path,
        method: options.body === undefined ? 'GET' : 'POST',
        headers: { host: url.host, ...(options.body !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(options.body)) } : {}) },
        ...(options.agent ? { agent: options.agent } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        // A body cut short (the control plane killed while answering) is no answer.
        res.on('error', (error) => resolve({ status: 0, text: String(error) }));
        res.on('close', () => resolve({ status: res.complete ? (res.statusCode ?? 0) : 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.setTimeout(HANG_MS, () => {
      req.destroy();
      reject(new Error(`POST ${path} on ${origin}: no answer in ${HANG_MS} ms (a hang)`));
    });
    req.on('error', (error) => resolve({ status: 0, text: String(error) }));
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

const call = (origin: string, kind: 'query' | 'mutation', name: string, input: unknown, agent?: Agent) =>
  hosted(origin, `/_platform/v0/${kind}/${name}`, { body: JSON.stringify({ input }), ...(agent ? { agent } : {}) });

async function notes(origin: string): Promise<Set<string>> {
  const answer = await call(origin, 'query', 'notes.list', {});
  expect(answer.status, answer.text).toBe(200);
  return new Set((JSON.parse(answer.text) as { result: string[] }).result);
}

/**
 * Eight writers, each on its own connection, sending `notes.add` with a unique text until stopped.
 * `origin()` is read before each request, so writers follow a control plane that moved to another port.
 */
/** Loads still running (a story that failed midway leaves its load for afterAll to stop). */
const loads = new Set<Load>();

class Load {
  readonly acknowledged: string[] = [];
  /** Every status answered (0: no answer, the connection refused or reset) and each body of a non-200. */
  readonly statuses = new Map<number, number>();
  readonly refusals: string[] = [];
  #stopped = false;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: WRITERS });
  readonly #done: Promise<void>;
  #sent = 0;

  constructor(readonly prefix: string, origin: () => string) {
    this.#done = Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        while (!this.#stopped) {
          const text = `${prefix}-${writer}-${this.#sent++}`;
          const answer = await call(origin(), 'mutation', 'notes.add', { text }, this.#agent);
          this.statuses.set(answer.status, (this.statuses.get(answer.status) ?? 0) + 1);
          if (answer.status === 200) this.acknowledged.push(text);
          else {
            this.refusals.push(`${answer.status} ${answer.text.slice(0, 200)}`);
            // Nothing listening (the control plane killed): try again shortly rather than spin.
            if (answer.status === 0) await new Promise((done) => setTimeout(done, 20));
          }
        }
      }),
    ).then(() => undefined);
    loads.add(this);
  }

  /** Resolves when `count` writes have been acknowledged in all (fails on a writer's hang). */
  async until(count: number): Promise<void> {
    while (this.acknowledged.length < count) {
      await Promise.race([this.#done, new Promise((done) => setTimeout(done, 10))]);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    loads.delete(this);
    try {
      await this.#done;
    } finally {
      this.#agent.destroy();
    }
  }
}


/** Running (not gone, not a zombie waiting to be reaped). */
const running = (pid: number) => {
  const state = stateOf(pid);
  return state !== undefined && state !== 'Z' && state !== 'X';
};

/** Workerd engines running on this data directory: processes of their own, and the pool's shared ones. */
const enginesOn = engineProcesses;

async function waitFor(what: string, check: () => boolean | Promise<boolean>, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what} after ${limitMs} ms`);
    await new Promise((done) => setTimeout(done, 25));
  }
}

/** The stories run with the records in the data directory's SQLite file, and in PostgreSQL (skipped, and said so, without a server). */
const database = await testDatabase();
const engines: { name: string; args: string[]; skip?: string }[] = [
  { name: 'records in SQLite', args: [] },
  'skip' in database ? { name: `records in PostgreSQL (skipped: ${database.skip})`, args: [], skip: database.skip } : { name: 'records in PostgreSQL', args: ['--database-url', database.url] },
];

for (const engine of engines) describe.skipIf(engine.skip !== undefined)(engine.name, () => {
  let work: string;
  let dataDir: string;
  let plane: Plane;
  let token: string;
  let v1: BuiltApp;
  let v2: BuiltApp;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'platform-crash-'));
    dataDir = join(work, 'data');
    const built = Promise.all([build(notesApp(1)), build(notesApp(2))]);
    built.catch(() => undefined); // awaited below, once the control plane is up
    plane = await startPlane(dataDir, engine.args);
    [v1, v2] = await built;
    token = await signInOverHttp(plane, 'crasher');
  }, 120_000);

  afterAll(async () => {
    const stopping = Promise.allSettled([...loads].map((load) => load.stop()));
    // A control plane still running stops as asked (ending its engines); one that does not is killed.
    for (const [child, exited] of children) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    await stopping;
    // Engines a killed control plane left behind, should any remain: ended here, by pid, so that no test leaves a process.
    for (const pid of dataDir ? enginesOn(dataDir) : []) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Ended meanwhile.
      }
    }
    if (dataDir) await waitFor('the engines to end', () => enginesOn(dataDir).length === 0);
    if (work) rmSync(work, { recursive: true, force: true });
  }, 90_000);

  afterEach(async () => {
    await Promise.allSettled([...loads].map((load) => load.stop()));
  });

  /** A new app with v1 deployed to its preview; its preview origin on the current control plane. */
  async function deployedApp(name: string): Promise<{ appId: string; origin: () => string }> {
    // A story that failed between its kill and its restart leaves no control plane: the next one starts it.
    if (!children.has(plane.child)) plane = await startPlane(dataDir, engine.args);
    const created = await api(plane, token, 'POST', '/v0/apps', { name });
    expect(created.status).toBe(201);
    const appId = String(created.body.app.id);
    const deployed = await api(plane, token, 'POST', `/v0/apps/${appId}/deployments`, deployBody(v1));
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
    return { appId, origin: () => hostedOrigin(appId, 'preview', plane.url) };
  }

  // Each story deploys its own app on whichever control plane is running, so they pass in either order.
  describe('nothing acknowledged is lost when a process is killed with SIGKILL under load', () => {
    it('the control plane killed: every acknowledged write, the app and its deployments survive the restart', async () => {
      const { appId, origin } = await deployedApp('crash-plane');
      const load = new Load('plane', origin);
      await load.until(BEFORE_KILL);
      // A deploy acknowledged (201) while the writers run, and the kill right after its answer.
      const deployed = await api(plane, token, 'POST', `/v0/apps/${appId}/deployments`, deployBody(v2, 'production'));
      expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
      // The preview is served under load: its engine (its own process, or a pool's) runs.
      expect(enginesOn(dataDir).length).toBeGreaterThan(0);
      plane.child.kill('SIGKILL');
      await plane.exited;
      const acknowledged = [...load.acknowledged];
      // A kill -9 runs no exit handler: the engines, processes of their own, may be left running.
      const leftBehind = enginesOn(dataDir);
      expect(acknowledged.length).toBeGreaterThanOrEqual(BEFORE_KILL);

      plane = await startPlane(dataDir, engine.args);
      // Engines the killed control plane left running are ended as the new one starts, before it serves.
      expect(leftBehind.filter(running)).toEqual([]);
      await load.until(acknowledged.length + AFTER_KILL);
      await load.stop();

      // Every write acknowledged before the kill (and after the restart) is there.
      const present = await notes(origin());
      const missing = load.acknowledged.filter((text) => !present.has(text));
      expect(missing, `${missing.length} of ${load.acknowledged.length} acknowledged writes missing (${acknowledged.length} before the kill)`).toEqual([]);
      // Only 200, or no answer at all while nothing listened.
      expect([...load.statuses.keys()].filter((status) => status !== 200 && status !== 0), load.refusals.slice(0, 5).join('\n')).toEqual([]);

      // The records: the session, the app and both deployments, each environment serving what it did.
      const app = await api(plane, token, 'GET', `/v0/apps/${appId}`);
      expect(app.status).toBe(200);
      expect(app.body.app).toMatchObject({ state: 'active', serving: { preview: v1.id, production: v2.id } });
      const listed = await api(plane, token, 'GET', `/v0/apps/${appId}/deployments`);
      expect(listed.body.deployments).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ environment: 'preview', artifactId: v1.id, state: 'completed' }),
          expect.objectContaining({ id: deployed.body.deployment.id, environment: 'production', artifactId: v2.id, state: 'completed' }),
        ]),
      );
      const production = hostedOrigin(appId, 'production', plane.url);
      const version = await call(production, 'query', 'app.version', {});
      expect(version.status, version.text).toBe(200);
      expect(JSON.parse(version.text)).toEqual({ result: 2 });
      expect((await hosted(production, '/')).status).toBe(200);
    }, 120_000);

    it('the app\'s workerd killed: requests in flight are answered 503, the next start a fresh engine, every acknowledged write is there', async () => {
      const { appId, origin } = await deployedApp('crash-engine');
      const load = new Load('engine', origin);
      await load.until(BEFORE_KILL);
      // Every engine process of the data directory: the app's own, or the pool's processes it runs in.
      const killed = enginesOn(dataDir);
      expect(killed.length).toBeGreaterThan(0);
      for (const pid of killed) process.kill(pid, 'SIGKILL');
      const atKill = load.acknowledged.length;
      await load.until(atKill + AFTER_KILL);
      await load.stop();

      const fresh = enginesOn(dataDir);
      expect(fresh.length).toBeGreaterThan(0);
      expect(fresh.filter((pid) => killed.includes(pid))).toEqual([]);
      const present = await notes(origin());
      const missing = load.acknowledged.filter((text) => !present.has(text));
      expect(missing, `${missing.length} of ${load.acknowledged.length} acknowledged writes missing (${atKill} before the kill)`).toEqual([]);
      // Every answer was 200 or 503 app_unavailable (the requests the kill caught); never a hang, never a reset.
      const other = load.refusals.filter((line) => !/^503 .*app_unavailable/.test(line));
      expect(other).toEqual([]);
      expect(load.statuses.get(503) ?? 0).toBeGreaterThan(0);
    }, 120_000);
  });
});
