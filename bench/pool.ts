/**
 * Many app environments per workerd process (issue 32): the hosting's own pool (src/adapters/workerd/
 * pool.ts, two shared processes and its default limits) with each environment served through its own
 * `AppEngine` as the hosting serves it, against one process per environment (the hosting with
 * PLATFORM_HOSTING=process) in the same run. Each environment runs its own copy of a small database
 * app's server bundle (a distinct module text: nothing is shared but the engine) and is visited once
 * (a mutation, then a query). Printed for each N (BENCH_POOL_APPS, default 1,1000): the resident memory
 * of every engine process and of this process (which holds the N engines, as the control plane does);
 * the first visit's time; a cold visit of a sleeping environment against a warm query; and what a
 * neighbour meets while one environment spins in a handler past its deadline, before and after the
 * pool moved the culprit to a process of its own.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkerEntry } from '../src/adapters/workerd/workerd-engine';
import { AppEngine, type HostedRequest } from '../src/adapters/workerd/app-engine';
import { WorkerdPool } from '../src/adapters/workerd/pool';
import type { Auth } from '../src/core/runtime';
import { build, databaseApp, deployBody } from '../src/testing/control-plane-apps';
import { engineProcesses, hostedRequest, signInOverHttp, startPlaneProcess } from '../src/testing/control-plane';
import { residentBytes } from './proc';
import { median, type Row } from './stats';

const SIZES = (process.env.BENCH_POOL_APPS ?? '1,1000').split(',').map(Number);
/** Apps deployed through a control plane of its own (BENCH_POOL_DEPLOYED, default 1,000; 0 skips it). */
const DEPLOYED = Number(process.env.BENCH_POOL_DEPLOYED ?? 1000);
const DEADLINE_MS = 2_000;
const GRACE_MS = 500;
const MB = 1e6;

const SERVER = `import { defineServer, mutation, query } from 'platform/server';
export default defineServer({
  queries: {
    'notes.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('notes').all()).map((note) => note.text) }),
    'bench.spin': query({ input: {}, handler: async () => { for (;;) {} } }),
  },
  mutations: { 'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => { await ctx.db.table('notes').insert({ text: input.text }); } }) },
});
`;

const GUEST = { appUserId: 'guest:bench', kind: 'guest', roles: [], permissions: [], workspaceIds: [], sessionId: 'bench' } as unknown as Auth;

const call = (kind: 'query' | 'mutation', name: string, input: unknown): HostedRequest => ({
  method: 'POST',
  url: `http://bench.localhost/_platform/v0/${kind}/${name}`,
  headers: [['content-type', 'application/json']],
  body: new TextEncoder().encode(JSON.stringify({ input })),
});

/** One visit: its status and time. */
async function visit(engine: AppEngine, request: HostedRequest): Promise<{ status: number; ms: number; text: string }> {
  const started = performance.now();
  const answer = await engine.fetch(GUEST, request);
  const text = await answer.text();
  return { status: answer.status, ms: performance.now() - started, text };
}


/** A builder signed in; the control plane starts at most 10 sign-ins a minute from one network, so a refused one is tried again. */
async function builder(plane: Awaited<ReturnType<typeof startPlaneProcess>>, name: string): Promise<string> {
  for (let tries = 0; ; tries++) {
    try {
      return await signInOverHttp(plane, name);
    } catch (error) {
      if (tries > 30) throw error;
      await new Promise((done) => setTimeout(done, 5_000));
    }
  }
}

/**
 * `count` app environments deployed through a control plane of its own (a process, as `npm start`
 * runs it): apps with a preview and a production each, builders of 20 apps each (the default quota),
 * as a class would have them; each environment visited once (a mutation). The control plane's and
 * every engine's resident memory.
 */
async function deployedRows(count: number, work: string): Promise<Row[]> {
  const dataDir = join(work, 'deployed');
  const plane = await startPlaneProcess(dataDir);
  try {
    const built = await build(databaseApp({ name: 'pooled', tables: { notes: { text: 'string' } }, server: SERVER }));
    const bodies = { preview: JSON.stringify(deployBody(built, 'preview')), production: JSON.stringify(deployBody(built, 'production')) };
    const apps = Math.ceil(count / 2);
    const tokens: string[] = [];
    for (let i = 0; i < Math.ceil(apps / 20); i++) tokens.push(await builder(plane, `student-${i}`));
    const deploys: number[] = [];
    const visits: number[] = [];
    for (let i = 0; i < apps; i++) {
      const headers = { authorization: `Bearer ${tokens[Math.floor(i / 20)]}`, 'content-type': 'application/json' };
      const created = (await (await fetch(`${plane.url}/v0/apps`, { method: 'POST', headers, body: JSON.stringify({ name: `app-${i}` }) })).json()) as { app: { id: string; urls: { preview: string; production: string } } };
      for (const environment of ['preview', 'production'] as const) {
        let at = performance.now();
        const deployed = await fetch(`${plane.url}/v0/apps/${created.app.id}/deployments`, { method: 'POST', headers, body: bodies[environment] });
        if (deployed.status !== 201) throw new Error(`deploy ${i} (${environment}) answered ${deployed.status}: ${(await deployed.text()).slice(0, 300)}`);
        deploys.push(performance.now() - at);
        at = performance.now();
        const visit = await hostedRequest(created.app.urls[environment], '/_platform/v0/mutation/notes.add', { method: 'POST', body: JSON.stringify({ input: { text: `hello ${i}` } }) });
        if (visit.status !== 200) throw new Error(`app ${i} (${environment}) answered ${visit.status}: ${visit.text.slice(0, 300)}`);
        visits.push(performance.now() - at);
      }
    }
    const pids = engineProcesses(dataDir);
    const engines = { bytes: pids.reduce((sum, pid) => sum + (residentBytes(pid) ?? 0), 0), processes: pids.length };
    const control = residentBytes(plane.child.pid!) ?? 0;
    return [
      { name: `${apps * 2} app environments deployed (${apps} apps) through a control plane and each visited once: the control plane`, value: control / MB, unit: 'MB' },
      { name: `${apps * 2} environments deployed: every engine process (${engines.processes})`, value: engines.bytes / MB, unit: 'MB' },
      { name: `${apps * 2} environments deployed: the control plane and every engine (goal < 4,000 MB)`, value: (control + engines.bytes) / MB, unit: 'MB' },
      { name: `${apps * 2} environments deployed: a deploy (upload, probe in a process of its own, switch), p50`, value: median(deploys), unit: 'ms' },
      { name: `${apps * 2} environments deployed: the first visit through the control plane (mutation), p50`, value: median(visits), unit: 'ms' },
    ];
  } finally {
    plane.child.kill('SIGTERM');
    await plane.exited;
  }
}

export async function poolRows(): Promise<Row[]> {
  const rows: Row[] = [];
  const work = mkdtempSync(join(tmpdir(), 'platform-bench-pool-'));
  try {
    const built = await build(databaseApp({ name: 'pooled', tables: { notes: { text: 'string' } }, server: SERVER }));
    const app = new TextDecoder().decode(built.files.get('server/index.js')!);
    const entryPath = await bundleWorkerEntry('workerd-app', join(work, 'entries'));
    const hostPath = await bundleWorkerEntry('workerd-pool', join(work, 'entries'));
    // Each environment its own copy of the bundle (a distinct text), as distinct apps would be.
    const appPath = (index: number) => {
      const path = join(work, 'apps', `${index}.mjs`);
      writeFileSync(path, `${app}\n// environment ${index}\n`);
      return path;
    };
    mkdirSync(join(work, 'apps'), { recursive: true });
    const options = (index: number) => ({
      dir: join(work, 'engines', String(index)),
      storageDir: join(work, 'storage', String(index)),
      entryPath,
      appPath: appPath(index),
      start: { manifest: built.record.manifest, env: {}, cursorSecret: randomBytes(32).toString('hex'), handlerDeadlineMs: DEADLINE_MS },
      deadlineMs: DEADLINE_MS,
      graceMs: GRACE_MS,
      startTimeoutMs: 60_000,
      memoryLimitBytes: 512 * 1024 * 1024,
      heapMb: 256,
    });

    // The baseline: one process for an environment, visited once.
    const own = new AppEngine(options(0));
    const ownFirst = await visit(own, call('mutation', 'notes.add', { text: 'hello' }));
    if (ownFirst.status !== 200) throw new Error(`the process engine answered ${ownFirst.status}: ${ownFirst.text}`);
    await visit(own, call('query', 'notes.list', {}));
    const ownResident = residentBytes(own.pid!)!;
    await own.kill();
    rows.push({ name: 'one process per environment: resident memory of one, visited once (baseline)', value: ownResident / MB, unit: 'MB' });
    rows.push({ name: 'one process per environment: first visit (process start, app start, mutation)', value: ownFirst.ms, unit: 'ms' });

    for (const size of SIZES) {
      const pool = new WorkerdPool({ dir: join(work, `pool-${size}`), entryPath, hostPath, processes: 2, heapMb: 256, startTimeoutMs: 60_000, memoryLimitBytes: 2048 * 1024 * 1024, aloneMemoryLimitBytes: 512 * 1024 * 1024, idleMs: 120_000 });
      const engines: AppEngine[] = [];
      try {
        const baseline = process.memoryUsage().rss;
        const firsts: number[] = [];
        for (let i = 1; i <= size; i++) {
          const engine = new AppEngine({ ...options(i), pool: { pool, key: `env${i}:preview` } });
          engines.push(engine);
          const first = await visit(engine, call('mutation', 'notes.add', { text: `hello ${i}` }));
          if (first.status !== 200) throw new Error(`environment ${i} answered ${first.status}: ${first.text.slice(0, 300)}`);
          firsts.push(first.ms);
          const read = await visit(engine, call('query', 'notes.list', {}));
          if (read.status !== 200 || !read.text.includes(`hello ${i}`)) throw new Error(`environment ${i} read ${read.status}: ${read.text.slice(0, 300)}`);
        }
        const engineBytes = pool.residentBytes();
        const hostBytes = process.memoryUsage().rss;
        rows.push({ name: `${size} environments in the pool, each visited once: every engine process (${pool.processes})`, value: engineBytes / MB, unit: 'MB' });
        rows.push({ name: `${size} environments in the pool: with this process, which holds their engines as the control plane does (${((hostBytes - baseline) / MB).toFixed(0)} MB of it theirs)`, value: (engineBytes + hostBytes) / MB, unit: 'MB' });
        rows.push({ name: `${size} environments in the pool: engine memory per environment against one process each (goal: 1,000 with the control plane < 4 GB)`, value: engineBytes / size / ownResident, unit: 'x' });
        rows.push({ name: `${size} environments in the pool: first visit (isolate loaded, facet made, mutation), p50`, value: median(firsts), unit: 'ms' });

        // Sleeping environments woken (their lease given back, their isolate let go), against a warm query.
        const sample = engines.slice(0, Math.min(20, size));
        const warm: number[] = [];
        for (const engine of sample) warm.push((await visit(engine, call('query', 'notes.list', {}))).ms);
        const cold: number[] = [];
        for (const [i, engine] of sample.entries()) {
          await engine.kill();
          const woken = new AppEngine({ ...options(i + 1), pool: { pool, key: `env${i + 1}:preview` } });
          engines[i] = woken;
          const answer = await visit(woken, call('query', 'notes.list', {}));
          if (answer.status !== 200 || !answer.text.includes(`hello ${i + 1}`)) throw new Error(`woken environment ${i + 1} read ${answer.status}: ${answer.text.slice(0, 300)}`);
          cold.push(answer.ms);
        }
        rows.push({ name: `${size} environments in the pool: a warm query, p50 (baseline)`, value: median(warm), unit: 'ms' });
        rows.push({ name: `${size} environments in the pool: cold visit of a sleeping environment, p50 (goal < 100 ms)`, value: median(cold), unit: 'ms' });

        if (size > 2) {
          // One environment spins past its deadline; its neighbour in the same process is asked meanwhile.
          const neighbour = async () => {
            const culprit = visit(engines[0]!, call('query', 'bench.spin', {}));
            await new Promise((done) => setTimeout(done, 100));
            // The neighbour in the culprit's process: with two shared processes, environments alternate.
            const answer = await visit(engines[2]!, call('query', 'notes.list', {}));
            await culprit;
            return answer;
          };
          if (engines[0]!.pid !== engines[2]!.pid) throw new Error('The neighbour is not in the culprit\'s process: the row would measure nothing.');
          const before = await neighbour();
          rows.push({ name: `${size} environments in the pool: a neighbour's query while one spins (its deadline ${DEADLINE_MS} ms; goal < deadline + 2 s), status ${before.status}`, value: before.ms, unit: 'ms' });
          // After the restart, the culprit runs alone: the neighbour is no longer held.
          await visit(engines[2]!, call('query', 'notes.list', {}));
          const after = await neighbour();
          rows.push({ name: `${size} environments in the pool: the same once the culprit runs in a process of its own (moved: ${pool.alone.has('env1:preview')}), status ${after.status}`, value: after.ms, unit: 'ms' });
        }
      } finally {
        await Promise.all(engines.map((engine) => engine.kill()));
        await pool.stop();
      }
    }
    if (DEPLOYED > 0) rows.push(...(await deployedRows(DEPLOYED, work)));
  } finally {
    if (process.env.BENCH_POOL_KEEP) console.log(`kept: ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  return rows;
}

