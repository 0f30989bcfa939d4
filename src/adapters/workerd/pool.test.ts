/**
 * Many environments per workerd process (pool.ts), with real workerd processes: each environment's
 * data is its own, it reaches no network and nothing that is not signed with its lease's key, a lease
 * given back and taken again finds its data, and a handler that spins stalls its neighbours for at
 * most its deadline and grace: its process is restarted and the culprit runs alone from then on.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Auth } from '../../core/runtime';
import { build, databaseApp } from '../../testing/control-plane-apps';
import { TENANT_HEADER, VERSION_HEADER } from '../../../worker/protocol/pool';
import { AppEngine, type HostedRequest } from './app-engine';
import { WorkerdPool } from './pool';
import { bundleWorkerEntry, stillRunning } from './workerd-engine';

const SERVER = `import { defineServer, endpoint, mutation, query } from 'platform/server';
export default defineServer({
  endpoints: { 'GET /api/headers': endpoint(async (request) => Response.json([...request.headers.keys()])) },
  queries: {
    'who.am': query({ input: {}, handler: async (ctx) => ctx.auth.appUserId }),
    'notes.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('notes').all()).map((note) => note.text) }),
    'net.reach': query({ input: {}, handler: async () => { try { await fetch('http://127.0.0.1:9/'); return 'reached'; } catch (error) { return 'refused'; } } }),
    'cpu.spin': query({ input: {}, handler: async () => { for (;;) {} } }),
    'mem.hog': query({ input: {}, handler: async () => { const kept = []; for (;;) kept.push(new Array(1e6).fill(kept.length)); } }),
  },
  mutations: { 'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => { await ctx.db.table('notes').insert({ text: input.text }); } }) },
});
`;

const GUEST = { appUserId: 'guest:pool', kind: 'guest', roles: [], permissions: [], workspaceIds: [], sessionId: 'pool' } as unknown as Auth;
const DEADLINE_MS = 1_000;
const GRACE_MS = 500;

const call = (kind: 'query' | 'mutation', name: string, input: unknown = {}): HostedRequest => ({
  method: 'POST',
  url: `http://app.localhost/_platform/v0/${kind}/${name}`,
  headers: [['content-type', 'application/json']],
  body: new TextEncoder().encode(JSON.stringify({ input })),
});

let work: string;
let pool: WorkerdPool;
let appPath: string;
let entryPath: string;
let manifest: unknown;

function environment(key: string): AppEngine {
  return new AppEngine({
    dir: join(work, 'unused', key),
    storageDir: join(work, 'unused-storage', key),
    entryPath,
    appPath,
    start: { manifest: manifest as never, env: {}, cursorSecret: randomBytes(32).toString('hex'), handlerDeadlineMs: DEADLINE_MS },
    deadlineMs: DEADLINE_MS,
    graceMs: GRACE_MS,
    startTimeoutMs: 30_000,
    memoryLimitBytes: 512 * 1024 * 1024,
    heapMb: 128,
    pool: { pool, key },
  });
}

async function result(engine: AppEngine, request: HostedRequest): Promise<{ status: number; body: { result?: unknown; error?: { code: string } } }> {
  const answer = await engine.fetch(GUEST, request);
  return { status: answer.status, body: (await answer.json()) as { result?: unknown; error?: { code: string } } };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-pool-test-'));
  const built = await build(databaseApp({ name: 'pooled', tables: { notes: { text: 'string' } }, server: SERVER }));
  manifest = built.record.manifest;
  appPath = join(work, 'app.js');
  writeFileSync(appPath, built.files.get('server/index.js')!);
  entryPath = await bundleWorkerEntry('workerd-app', join(work, 'entries'));
  const hostPath = await bundleWorkerEntry('workerd-pool', join(work, 'entries'));
  pool = new WorkerdPool({ dir: join(work, 'pool'), entryPath, hostPath, processes: 1, heapMb: 128, startTimeoutMs: 30_000, memoryLimitBytes: 1024 * 1024 * 1024, idleMs: 60_000 });
}, 120_000);

afterAll(async () => {
  await pool?.stop();
  if (work?.includes('platform-pool-test-')) rmSync(work, { recursive: true, force: true });
});

describe('a pool of workerd processes', () => {
  it('keeps each environment\'s data its own, in one process, and data outlives a lease', async () => {
    const [a, b] = [environment('a:preview'), environment('b:preview')];
    expect((await result(a, call('mutation', 'notes.add', { text: 'only a' }))).status).toBe(200);
    expect((await result(b, call('mutation', 'notes.add', { text: 'only b' }))).status).toBe(200);
    expect((await result(a, call('query', 'notes.list'))).body.result).toEqual(['only a']);
    expect((await result(b, call('query', 'notes.list'))).body.result).toEqual(['only b']);
    expect(pool.processes).toBe(1);
    // Given back (the environment sleeps) and taken again: a new lease, a new key, the same data.
    await a.kill();
    const again = environment('a:preview');
    expect((await result(again, call('query', 'notes.list'))).body.result).toEqual(['only a']);
    await Promise.all([again.kill(), b.kill()]);
  });

  it('calls that come at once go to the engine together, and each is answered as it would be alone, under its own caller', async () => {
    const engine = environment('together:preview');
    const sent: string[] = [];
    const { subscribe, unsubscribe } = await import('node:diagnostics_channel');
    const seen = (message: unknown) => sent.push((message as { request: { path: string } }).request.path);
    subscribe('http.client.request.start', seen);
    try {
      const who = (n: number) => ({ ...GUEST, appUserId: `guest:${n}`, sessionId: `s${n}` }) as unknown as Auth;
      /** Every tenth an unknown name, every third (else) who calls, every second (else) a write, the rest a refused input. */
      const kind = (n: number) => (n % 10 === 9 ? 'unknown' : n % 3 === 0 ? 'who' : n % 2 === 0 ? 'write' : 'refused');
      const requests: Record<string, (n: number) => HostedRequest> = {
        unknown: () => call('query', 'notes.nothing'),
        who: () => call('query', 'who.am'),
        write: (n) => call('mutation', 'notes.add', { text: `note ${n}` }),
        refused: () => call('mutation', 'notes.add', { text: 7 }),
      };
      const answers = await Promise.all(
        Array.from({ length: 40 }, async (_, n) => {
          const one = await engine.fetch(who(n), requests[kind(n)]!(n));
          return { status: one.status, body: (await one.json()) as { result?: unknown; error?: { code: string } }, wrote: one.headers.get('x-platform-wrote') };
        }),
      );
      answers.forEach((answer, n) => {
        if (kind(n) === 'unknown') expect(answer.body.error?.code, `call ${n}`).toBe('not_found');
        else if (kind(n) === 'who') expect([answer.status, answer.body], `call ${n}`).toEqual([200, { result: `guest:${n}` }]);
        else if (kind(n) === 'write') expect([answer.status, answer.body, answer.wrote], `call ${n}`).toEqual([200, {}, 'notes']);
        else expect([answer.status, answer.body.error?.code], `call ${n}`).toEqual([400, 'operation_failed']);
      });
    } finally {
      unsubscribe('http.client.request.start', seen);
    }
    expect(sent.filter((path) => path === '/__platform/batch').length).toBeGreaterThan(0);
    expect(sent.length).toBeLessThan(40);
    // Every acknowledged write is there, once.
    const listed = (await result(engine, call('query', 'notes.list'))).body.result as string[];
    expect(listed.sort()).toEqual(Array.from({ length: 40 }, (_, n) => n).filter((n) => n % 10 !== 9 && n % 3 !== 0 && n % 2 === 0).map((n) => `note ${n}`).sort());
    await engine.kill();
  });

  it('a handler that spins inside a batch is answered past its deadline, the calls after it are not run, and the environment serves again', async () => {
    const engine = environment('batch-spin:preview');
    expect((await result(engine, call('mutation', 'notes.add', { text: 'before' }))).status).toBe(200);
    // Two at the engine, then a batch whose first call spins and whose second would write.
    const answers = await Promise.all([
      result(engine, call('query', 'notes.list')),
      result(engine, call('query', 'notes.list')),
      result(engine, call('query', 'cpu.spin')),
      result(engine, call('mutation', 'notes.add', { text: 'after the spin' })),
    ]);
    const codes = answers.map((answer) => answer.body.error?.code ?? answer.status);
    expect(codes).toContain('handler_deadline_exceeded');
    const spun = codes.indexOf('handler_deadline_exceeded');
    expect(codes[3], JSON.stringify(codes)).not.toBe(200);
    expect(spun).toBeLessThan(3);
    // Nothing after the spin was written, and the environment serves its data again.
    expect((await result(engine, call('query', 'notes.list'))).body.result).toEqual(['before']);
    await engine.kill();
  });

  it('calls still waiting at the control plane when a spin ends the engine are asked of the engine that serves next', async () => {
    const engine = environment('waiting-spin:preview');
    expect((await result(engine, call('mutation', 'notes.add', { text: 'before' }))).status).toBe(200);
    // The spin and a read at the engine; a write and a read wait for them.
    const answers = await Promise.all([
      result(engine, call('query', 'cpu.spin')),
      result(engine, call('query', 'notes.list')),
      result(engine, call('mutation', 'notes.add', { text: 'waited' })),
      result(engine, call('query', 'notes.list')),
    ]);
    expect(answers[0]!.body.error?.code).toBe('handler_deadline_exceeded');
    expect([answers[2]!.status, answers[3]!.status], JSON.stringify(answers)).toEqual([200, 200]);
    expect((await result(engine, call('query', 'notes.list'))).body.result).toEqual(['before', 'waited']);
    await engine.kill();
  });

  it('shows the app none of the pool\'s headers, even ones a visitor sent', async () => {
    const engine = environment('headers:preview');
    const answer = await engine.fetch(GUEST, { method: 'GET', url: 'http://app.localhost/api/headers', headers: [[TENANT_HEADER, 'other:production'], ['x-visitor', '1']] });
    const names = (await answer.json()) as string[];
    expect(names).toContain('x-visitor');
    expect(names.filter((name) => name.startsWith('x-platform-'))).toEqual([]);
    await engine.kill();
  });

  it('gives an environment no network', async () => {
    const engine = environment('net:preview');
    expect((await result(engine, call('query', 'net.reach'))).body.result).toBe('refused');
    await engine.kill();
  });

  it('refuses what the control plane did not sign with the lease\'s key, and a lease the source does not know', async () => {
    const engine = environment('keyed:preview');
    expect((await result(engine, call('mutation', 'notes.add', { text: 'kept' }))).status).toBe(200);
    // As a local process would: the pool's port, the environment's name and lease, an identity of its own making.
    const lease = await pool.lease({ key: 'keyed:preview', start: { manifest: manifest as never, env: {}, cursorSecret: randomBytes(32).toString('hex') }, appPath });
    const forged = await fetch(`http://127.0.0.1:${lease.port}/_platform/v0/query/notes.list`, { method: 'POST', headers: { ...lease.headers, 'content-type': 'application/json', 'x-platform-identity': 'forged' }, body: '{"input":{}}' });
    expect(forged.status).toBe(403);
    const unknownLease = await fetch(`http://127.0.0.1:${lease.port}/_platform/v0/query/notes.list`, { method: 'POST', headers: { [TENANT_HEADER]: 'keyed:preview', [VERSION_HEADER]: 'not-a-lease', 'content-type': 'application/json' }, body: '{"input":{}}' });
    expect(unknownLease.status).toBe(503);
    await lease.kill();
    // The source answers the pool's processes only.
    expect((await result(engine, call('query', 'notes.list'))).body.result).toEqual(['kept']);
    await engine.kill();
  });

  it('a handler that spins stalls its neighbour for at most its deadline and grace, and then runs alone', async () => {
    const [culprit, neighbour] = [environment('spin:preview'), environment('calm:preview')];
    expect((await result(neighbour, call('mutation', 'notes.add', { text: 'calm' }))).status).toBe(200);
    expect((await result(culprit, call('query', 'notes.list'))).status).toBe(200);
    const shared = (await pool.lease({ key: 'calm:preview', start: { manifest: manifest as never, env: {}, cursorSecret: randomBytes(32).toString('hex') }, appPath }));
    const sharedPid = shared.pid!;
    await shared.kill();

    const spinning = result(culprit, call('query', 'cpu.spin'));
    await new Promise((done) => setTimeout(done, 100));
    const asked = performance.now();
    const meanwhile = await result(neighbour, call('query', 'notes.list'));
    const waited = performance.now() - asked;
    expect(waited).toBeLessThan(DEADLINE_MS + GRACE_MS + 2_000);
    expect([200, 503]).toContain(meanwhile.status);
    expect((await spinning).body.error?.code).toBe('handler_deadline_exceeded');
    expect(pool.alone.has('spin:preview')).toBe(true);
    await new Promise((done) => setTimeout(done, 200));
    expect(stillRunning(sharedPid)).toBe(false);

    // The neighbour is served again, with its data; the culprit now spins in a process of its own.
    expect((await result(neighbour, call('query', 'notes.list'))).body.result).toEqual(['calm']);
    const again = result(culprit, call('query', 'cpu.spin'));
    await new Promise((done) => setTimeout(done, 100));
    const during = performance.now();
    expect((await result(neighbour, call('query', 'notes.list'))).body.result).toEqual(['calm']);
    expect(performance.now() - during).toBeLessThan(DEADLINE_MS);
    expect((await again).body.error?.code).toBe('handler_deadline_exceeded');
    await Promise.all([culprit.kill(), neighbour.kill()]);
  });

  it('a handler that takes memory without end ends its process, and then runs alone', async () => {
    const [hog, neighbour] = [environment('hog:preview'), environment('quiet:preview')];
    expect((await result(neighbour, call('mutation', 'notes.add', { text: 'quiet' }))).status).toBe(200);
    const answer = await result(hog, call('query', 'mem.hog'));
    expect(answer.status).toBe(503);
    // The connection broke as the process ended; its end is known a moment later.
    for (let waited = 0; !pool.alone.has('hog:preview') && waited < 5_000; waited += 20) await new Promise((done) => setTimeout(done, 20));
    expect(pool.alone.has('hog:preview')).toBe(true);
    expect(pool.alone.has('quiet:preview')).toBe(false);
    expect((await result(neighbour, call('query', 'notes.list'))).body.result).toEqual(['quiet']);
    await Promise.all([hog.kill(), neighbour.kill()]);
  });

  it('deletes an environment\'s data', async () => {
    const engine = environment('gone:preview');
    expect((await result(engine, call('mutation', 'notes.add', { text: 'doomed' }))).status).toBe(200);
    await engine.kill();
    await pool.forget('gone:preview');
    const fresh = environment('gone:preview');
    expect((await result(fresh, call('query', 'notes.list'))).body.result).toEqual([]);
    await fresh.kill();
  });
});
