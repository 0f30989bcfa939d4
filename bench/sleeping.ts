/**
 * Environments that sleep (issue 32): N deployed app environments (1 and 20 by default,
 * BENCH_SLEEP_APPS=1,20), each visited once, then left alone until the control plane puts their engines
 * to sleep. Printed for each N: the resident memory of the control plane plus every engine while all are
 * awake and once all sleep, and a cold visit of a sleeping environment against a warm query of an awake
 * one (the baseline, same run): all sleeping, the pool's processes have ended too, so a wake starts one
 * (`npm run bench -- pool` measures 1,000 awake, and a wake beside awake neighbours). The control plane
 * runs as its own process, as `npm start` runs it, with a short idle time (--engine-idle-seconds).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, databaseApp, deployBody } from '../src/testing/control-plane-apps';
import { engineProcesses, hostedRequest, signInOverHttp, startPlaneProcess, type PlaneProcess } from '../src/testing/control-plane';
import { residentBytes } from './proc';
import { median, type Row } from './stats';

const SIZES = (process.env.BENCH_SLEEP_APPS ?? '1,20').split(',').map(Number);
const IDLE_SECONDS = 2;
/** Apps one builder may have (DEFAULT_QUOTAS.appsPerBuilder): more environments take more builders. */
const APPS_PER_BUILDER = 20;
const COLD_VISITS = 10;
const WARM_QUERIES = 50;

const SERVER = `import { defineServer, mutation, query } from 'platform/server';
export default defineServer({
  queries: { 'notes.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('notes').all()).map((note) => note.text) }) },
  mutations: { 'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => { await ctx.db.table('notes').insert({ text: input.text }); } }) },
});
`;

/** Resident bytes of a process, 0 when it is gone. */
const rss = (pid: number): number => residentBytes(pid) ?? 0;

/** The workerd processes serving apps from `dataDir` (a process each, or the pool's). */
const engines = engineProcesses;

async function query(origin: string): Promise<number> {
  const start = performance.now();
  const answer = await hostedRequest(origin, '/_platform/v0/query/notes.list', { method: 'POST', body: '{"input":{}}' });
  if (answer.status !== 200) throw new Error(`notes.list answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return performance.now() - start;
}

async function until(check: () => boolean, limitMs: number): Promise<void> {
  const end = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('the engines did not sleep in time');
    await new Promise((done) => setTimeout(done, 100));
  }
}

async function deployAll(plane: PlaneProcess, count: number): Promise<string[]> {
  const files = await build(databaseApp({ name: 'sleepy', tables: { notes: { text: 'string' } }, server: SERVER, client: "document.body.textContent = 'sleepy';\n" }));
  const origins: string[] = [];
  let token = '';
  for (let i = 0; i < count; i++) {
    if (i % APPS_PER_BUILDER === 0) token = await signInOverHttp(plane, `sleeper${i / APPS_PER_BUILDER}`);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = (await (await fetch(`${plane.url}/v0/apps`, { method: 'POST', headers, body: JSON.stringify({ name: `sleepy-${i}` }) })).json()) as { app: { id: string; urls: { preview: string } } };
    const answer = await fetch(`${plane.url}/v0/apps/${created.app.id}/deployments`, { method: 'POST', headers, body: JSON.stringify(deployBody(files)) });
    if (answer.status !== 201) throw new Error(`deploy ${i} failed: ${await answer.text()}`);
    origins.push(created.app.urls.preview);
  }
  return origins;
}

async function sizeRows(count: number): Promise<Row[]> {
  const work = mkdtempSync(join(tmpdir(), 'platform-bench-sleep-'));
  const dataDir = join(work, 'data');
  const plane = await startPlaneProcess(dataDir, ['--engine-idle-seconds', String(IDLE_SECONDS)]);
  try {
    const origins = await deployAll(plane, count);
    await until(() => engines(dataDir).length === 0, 60_000);
    // Every environment visited once, one after the other. An engine may fall asleep before the last
    // visit on a slow machine, so each engine's memory is read right after its visit: the sum is what
    // all of them awake at once would hold.
    let engineBytes = 0;
    let seen = new Set<number>();
    for (const origin of origins) {
      await query(origin);
      const now = engines(dataDir);
      for (const pid of now) if (!seen.has(pid)) engineBytes += rss(pid);
      seen = new Set([...seen, ...now]);
    }
    const awake = rss(plane.child.pid!) + engineBytes;
    // Warm queries of the last one (the baseline), then all are left alone until they sleep.
    const warm: number[] = [];
    for (let i = 0; i < WARM_QUERIES; i++) warm.push(await query(origins[origins.length - 1]!));
    await until(() => engines(dataDir).length === 0, 60_000 + count * 1_000);
    const asleep = rss(plane.child.pid!);
    const cold: number[] = [];
    for (let i = 0; i < COLD_VISITS; i++) {
      const origin = origins[i % origins.length]!;
      await until(() => engines(dataDir).length === 0, 60_000);
      cold.push(await query(origin));
    }
    const coldP50 = median(cold);
    const warmP50 = median(warm);
    return [
      { name: `${count} environments visited once, all awake: control plane + engines resident`, value: awake, unit: 'bytes' },
      { name: `${count} environments, all asleep: control plane + engines resident`, value: asleep, unit: 'bytes' },
      { name: `${count} environments: warm query p50 of ${WARM_QUERIES} (baseline)`, value: warmP50, unit: 'ms' },
      { name: `${count} environments: cold visit of a sleeping environment p50 of ${COLD_VISITS} (goal < 100 ms)`, value: coldP50, unit: 'ms' },
      { name: `${count} environments: cold visit / warm query`, value: coldP50 / warmP50, unit: 'x' },
    ];
  } finally {
    plane.child.kill('SIGTERM');
    await Promise.race([plane.exited, new Promise((done) => setTimeout(done, 10_000))]);
    for (const pid of engines(dataDir)) process.kill(pid, 'SIGKILL');
    rmSync(work, { recursive: true, force: true });
  }
}

export async function sleepingRows(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const count of SIZES) rows.push(...(await sizeRows(count)));
  return rows;
}
