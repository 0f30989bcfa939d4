/**
 * The front door (issue 32): a hosted query at 50 connections through the control plane, against a raw
 * workerd serving the same query from a SQLite Durable Object in the same run (the baseline: a worker
 * that forwards to one object, which reads ten rows and answers them as JSON). Printed: throughput, p50
 * and p99 of each, their ratio (goal ≥ 0.5), and the CPU each process spent per request, read from
 * /proc. Then a visitor without a cookie against a returning one: the control plane's CPU per request
 * (goal: no more), the two in turns, with the throughput and the engine's CPU of each beside it. The control plane runs
 * as its own process, as `npm start` runs it; the load comes from this process over kept-alive
 * loopback connections. BENCH_FRONT_DOOR_SECONDS sets each run's time.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkerdEngine } from '../src/adapters/workerd/workerd-engine';
import { build, databaseApp, deployBody } from '../src/testing/control-plane-apps';
import { cookieOf, engineProcesses, hostedRequest, signInOverHttp, startPlaneProcess } from '../src/testing/control-plane';
import { load, type Load, type LoadTarget } from './load';
import { percentile, type Row } from './stats';

const CONNECTIONS = 50;
const SECONDS = Number(process.env.BENCH_FRONT_DOOR_SECONDS ?? 8);
const NOTES = 10;

const SERVER = `import { defineServer, mutation, query } from 'platform/server';
export default defineServer({
  queries: { 'notes.recent': query({ input: {}, handler: async (ctx) => (await ctx.db.table('notes').all()).map((note) => note.text) }) },
  mutations: { 'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => { await ctx.db.table('notes').insert({ text: input.text }); } }) },
});
`;

/** The baseline: one worker, one SQLite Durable Object with the same ten rows, the same answer's shape. */
const RAW = `import { DurableObject } from 'cloudflare:workers';
export default { fetch: (request, env) => env.STORE.get(env.STORE.idFromName('one')).fetch(request) };
export class Store extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS notes (id TEXT PRIMARY KEY, createdAt INTEGER NOT NULL, text TEXT NOT NULL)');
      ctx.storage.sql.exec('CREATE INDEX IF NOT EXISTS notes_order ON notes (createdAt, id)');
      if (ctx.storage.sql.exec('SELECT count(*) AS n FROM notes').one().n === 0) {
        for (let i = 0; i < ${NOTES}; i++) ctx.storage.sql.exec('INSERT INTO notes VALUES (?, ?, ?)', 'n' + i, Date.now() + i, 'note ' + i);
      }
    });
  }
  async fetch(request) {
    await request.text();
    const rows = this.ctx.storage.sql.exec('SELECT id, createdAt, text FROM notes ORDER BY createdAt, id').toArray();
    return Response.json({ result: rows.map((row) => row.text) });
  }
}
`;

/** Clock ticks (user + system) a process has used, from /proc/<pid>/stat; 0 once it is gone. */
function ticks(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}
const MS_PER_TICK = 10;

function loadRows(label: string, result: Load): Row[] {
  if (result.failed > 0) throw new Error(`${label}: ${result.failed} requests failed`);
  return [
    { name: `${label}: throughput at ${CONNECTIONS} connections`, value: result.requests / result.seconds, unit: 'ops/s' },
    { name: `${label}: p50`, value: percentile(result.latencies, 50), unit: 'ms' },
    { name: `${label}: p99`, value: percentile(result.latencies, 99), unit: 'ms' },
  ];
}

/** The engines' CPU per request from `cpuPerRequest`'s figures (the control plane's is the first). */
const engineCpu = (perRequest: number[]) => perRequest.slice(1).reduce((a, b) => a + b, 0);

/** CPU (ms) that each of `pids` spends while `work` runs, per request it answered. */
async function cpuPerRequest<T extends { requests: number }>(pids: () => number[], work: () => Promise<T>): Promise<{ result: T; perRequest: number[] }> {
  const before = pids().map(ticks);
  const result = await work();
  const after = pids().map(ticks);
  return { result, perRequest: after.map((value, i) => ((value - (before[i] ?? 0)) * MS_PER_TICK) / Math.max(1, result.requests)) };
}

/** Two loads run in turns, ROUNDS times each; each one's requests, seconds and CPU per request over all its rounds. */
async function inTurns(pids: () => number[], first: () => Promise<Load>, second: () => Promise<Load>): Promise<{ result: Load; perRequest: number[] }[]> {
  const sums = [first, second].map(() => ({ result: { requests: 0, failed: 0, seconds: 0, latencies: [] as number[] }, cpu: [] as number[] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, work] of [first, second].entries()) {
      const sum = sums[i]!;
      const { result, perRequest } = await cpuPerRequest(pids, work);
      perRequest.forEach((ms, pid) => (sum.cpu[pid] = (sum.cpu[pid] ?? 0) + ms * Math.max(1, result.requests)));
      sum.result.requests += result.requests;
      sum.result.failed += result.failed;
      sum.result.seconds += result.seconds;
      sum.result.latencies.push(...result.latencies);
    }
  }
  return sums.map(({ result, cpu }) => ({ result, perRequest: cpu.map((ms) => ms / Math.max(1, result.requests)) }));
}
const ROUNDS = 4;

async function rawRows(work: string): Promise<{ rows: Row[]; throughput: number }> {
  const dir = join(work, 'raw');
  mkdirSync(join(dir, 'storage'), { recursive: true });
  writeFileSync(join(dir, 'raw.js'), RAW);
  const engine = await WorkerdEngine.start({ dir, modules: [{ name: 'raw.js', path: join(dir, 'raw.js') }], durableObject: { className: 'Store', storageDir: join(dir, 'storage') }, secrets: {}, heapMb: 128, compatibilityDate: '2025-09-01', startTimeoutMs: 30_000 });
  try {
    const target: LoadTarget = { port: engine.port!, host: 'raw.localhost', path: '/', body: '{"input":{}}' };
    await load(target, 1, CONNECTIONS);
    const { result, perRequest } = await cpuPerRequest(() => [engine.pid!], () => load(target, SECONDS, CONNECTIONS));
    return { rows: [...loadRows('raw workerd, SQLite Durable Object (baseline)', result), { name: 'raw workerd: its CPU per request', value: perRequest[0]!, unit: 'ms' }], throughput: result.requests / result.seconds };
  } finally {
    await engine.kill();
  }
}

async function hostedRows(work: string, rawThroughput: number): Promise<Row[]> {
  const dataDir = join(work, 'plane');
  const plane = await startPlaneProcess(dataDir);
  try {
    const token = await signInOverHttp(plane, 'door');
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = (await (await fetch(`${plane.url}/v0/apps`, { method: 'POST', headers, body: JSON.stringify({ name: 'front-door' }) })).json()) as { app: { id: string; urls: { preview: string } } };
    const files = await build(databaseApp({ name: 'front-door', tables: { notes: { text: 'string' } }, server: SERVER }));
    const deployed = await fetch(`${plane.url}/v0/apps/${created.app.id}/deployments`, { method: 'POST', headers, body: JSON.stringify(deployBody(files)) });
    if (deployed.status !== 201) throw new Error(`deploy failed: ${await deployed.text()}`);
    const origin = created.app.urls.preview;
    let cookie = '';
    for (let i = 0; i < NOTES; i++) {
      const answer = await hostedRequest(`http://${new URL(origin).hostname}:${plane.port}`, '/_platform/v0/mutation/notes.add', { method: 'POST', body: JSON.stringify({ input: { text: `note ${i}` } }), headers: cookie ? { cookie } : {} });
      if (answer.status !== 200) throw new Error(`notes.add answered ${answer.status}: ${answer.text.slice(0, 300)}`);
      cookie ||= cookieOf(answer) ?? '';
    }
    if (!cookie) throw new Error('the hosted app set no guest cookie');
    const returningVisitor: LoadTarget = { port: plane.port, host: `${new URL(origin).hostname}:${plane.port}`, path: '/_platform/v0/query/notes.recent', body: '{"input":{}}', headers: () => ({ cookie }) };
    const newVisitors: LoadTarget = { ...returningVisitor, headers: () => ({}) };
    // The control plane, then its engines: processes of their own, or the pool's shared ones.
    const pids = () => [plane.child.pid!, ...engineProcesses(dataDir)];
    await load(returningVisitor, 1, CONNECTIONS);
    const returning = await cpuPerRequest(pids, () => load(returningVisitor, SECONDS, CONNECTIONS));
    const rows = loadRows('through the control plane, a returning visitor', returning.result);
    const throughput = returning.result.requests / returning.result.seconds;
    rows.push({ name: 'through the control plane: throughput against raw workerd (goal ≥ 0.5)', value: throughput / rawThroughput, unit: 'x' });
    rows.push({ name: 'through the control plane: p99 (goal < 50 ms)', value: percentile(returning.result.latencies, 99), unit: 'ms' });
    rows.push({ name: "through the control plane: the control plane's CPU per request", value: returning.perRequest[0]!, unit: 'ms' });
    rows.push({ name: "through the control plane: the engine's CPU per request", value: engineCpu(returning.perRequest), unit: 'ms' });
    // Cookieless: every request a visitor the control plane has not seen; fewer connections, as such
    // visitors come. In turns with a returning visitor, four rounds each, so that the machine's drift
    // and the warm-up one leaves fall on both alike.
    const [fresh, again] = await inTurns(pids, () => load(newVisitors, SECONDS / 8, 10), () => load(returningVisitor, SECONDS / 8, 10));
    if (!fresh || !again || fresh.result.failed || again.result.failed) throw new Error(`cookieless or returning requests failed: ${fresh?.result.failed}, ${again?.result.failed}`);
    rows.push({ name: 'a visitor without a cookie: throughput (10 connections)', value: fresh.result.requests / fresh.result.seconds, unit: 'ops/s' });
    rows.push({ name: 'a returning visitor: throughput (10 connections)', value: again.result.requests / again.result.seconds, unit: 'ops/s' });
    rows.push({ name: "a visitor without a cookie: the engine's CPU per request (10 connections)", value: engineCpu(fresh.perRequest), unit: 'ms' });
    rows.push({ name: "a returning visitor: the engine's CPU per request (10 connections)", value: engineCpu(again.perRequest), unit: 'ms' });
    rows.push({ name: "a visitor without a cookie: the control plane's CPU per request (10 connections)", value: fresh.perRequest[0]!, unit: 'ms' });
    rows.push({ name: "a returning visitor: the control plane's CPU per request (10 connections, baseline)", value: again.perRequest[0]!, unit: 'ms' });
    rows.push({ name: 'a visitor without a cookie against a returning one (goal ≤ 1, within the noise)', value: fresh.perRequest[0]! / again.perRequest[0]!, unit: 'x' });
    return rows;
  } finally {
    plane.child.kill('SIGTERM');
    await plane.exited;
  }
}

export async function frontDoorRows(): Promise<Row[]> {
  const work = mkdtempSync(join(tmpdir(), 'platform-bench-front-door-'));
  try {
    const raw = await rawRows(work);
    return [...raw.rows, ...(await hostedRows(work, raw.throughput))];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
