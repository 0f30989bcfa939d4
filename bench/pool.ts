/**
 * Many app environments in one workerd (issue 32, item 2), measured before the hosting uses it: N
 * environments of a small database app, each its own isolate loaded at run time through the Worker
 * Loader binding (`globalOutbound = null`) with its Durable Object's SQLite in a facet of a host
 * object, in one workerd process; against the hosting of today, one workerd process per environment,
 * in the same run. Each environment runs the hosting's own trusted entry (worker/workerd-app.ts) and its
 * own copy of the app's server bundle (a distinct module text, so nothing is shared but the engine), and
 * is visited once (a signed mutation, then a signed query). Printed for each N (BENCH_POOL_APPS, default
 * 1,100,300): the process's resident memory, per environment; the first visit's time; a warm query's;
 * and what a neighbour meets while one environment spins in a handler (workerd enforces no CPU limit:
 * every isolate of the process waits). Needs workerd's `--experimental` (the loader and facets).
 * BENCH_POOL_KEEP=1 keeps the files (the facets' SQLite files: `<host object id>.1.sqlite` beside the
 * host object's own, and a `.facets` record of the names).
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkerEntry, workerdBinary } from '../src/adapters/workerd/workerd-engine';
import { AppEngine } from '../src/adapters/workerd/app-engine';
import { IDENTITY_HEADER, signIdentity } from '../src/core/host/identity';
import type { Auth } from '../src/core/runtime/personas';
import { build, databaseApp } from '../src/testing/control-plane-apps';
import { residentBytes } from './proc';
import { median, type Row } from './stats';

const SIZES = (process.env.BENCH_POOL_APPS ?? '1,100,300').split(',').map(Number);
const SPIN_MS = 2000;

const SERVER = `import { defineServer, mutation, query } from 'platform/server';
export default defineServer({
  queries: {
    'notes.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('notes').all()).map((note) => note.text) }),
    'bench.hog': query({ input: {}, handler: async () => { const kept = []; for (;;) kept.push(new Array(1e6).fill(kept.length)); } }),
    'bench.spin': query({ input: { ms: 'number' }, handler: async (_ctx, input) => { const end = Date.now() + input.ms; while (Date.now() < end); return 1; } }),
  },
  mutations: { 'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => { await ctx.db.table('notes').insert({ text: input.text }); } }) },
});
`;

/**
 * The host worker: routes a request to its environment's host object by the `x-tenant` header; the
 * object loads the environment's isolate (once per process) and hands the request to the app's
 * Durable Object class, run as its facet with SQLite of its own. The module texts come from the
 * bench's text bindings here; the hosting would fetch them from the control plane.
 */
const HOST = `import { DurableObject } from 'cloudflare:workers';
export default {
  fetch(request, env) {
    const tenant = request.headers.get('x-tenant');
    return env.TENANT.get(env.TENANT.idFromName(tenant)).fetch(request);
  },
};
export class Tenant extends DurableObject {
  fetch(request) {
    const tenant = request.headers.get('x-tenant');
    const start = request.headers.get('x-start');
    const env = this.env;
    const worker = env.LOADER.get(tenant, () => ({
      compatibilityDate: '2025-09-01',
      mainModule: 'entry.js',
      modules: { 'entry.js': env.ENTRY, 'app.js': env.APP + '\\n// ' + tenant + '\\n' },
      env: { START: start },
      globalOutbound: null,
    }));
    const facet = this.ctx.facets.get('app', () => ({ class: worker.getDurableObjectClass('AppStore') }));
    return facet.fetch(request);
  }
}
`;

function config(dir: string): string {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "host", worker = .host),
    (name = "no-network", network = (allow = [], deny = [])),
    (name = "storage", disk = (path = ${JSON.stringify(join(dir, 'storage'))}, writable = true)),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "host") ],
  v8Flags = [ "--max-old-space-size=256", "--initial-old-space-size=2", "--max-semi-space-size=4" ],
);
const host :Workerd.Worker = (
  compatibilityDate = "2025-09-01",
  compatibilityFlags = ["experimental"],
  modules = [ (name = "host.js", esModule = embed "host.js") ],
  bindings = [
    (name = "LOADER", workerLoader = ()),
    (name = "ENTRY", text = embed "entry.js"),
    (name = "APP", text = embed "app.js"),
    (name = "TENANT", durableObjectNamespace = "Tenant"),
  ],
  globalOutbound = "no-network",
  durableObjectNamespaces = [ (className = "Tenant", uniqueKey = "platform-pool-tenant", enableSql = true) ],
  durableObjectStorage = (localDisk = "storage"),
);
`;
}

/** Resident bytes of a process that must still run. */
function rss(pid: number): number {
  const bytes = residentBytes(pid);
  if (bytes === undefined) throw new Error(`process ${pid} has ended`);
  return bytes;
}

interface Tenant {
  name: string;
  key: Uint8Array;
  start: string;
  sequence: number;
}

const GUEST = { appUserId: 'guest:bench', kind: 'guest', roles: [], permissions: [], workspaceIds: [], sessionId: 'bench' } as unknown as Auth;

/** A signed runtime call to one environment of the pool; its status and time. */
function call(port: number, tenant: Tenant, kind: 'query' | 'mutation', name: string, input: unknown): Promise<{ status: number; ms: number; text: string }> {
  const body = JSON.stringify({ input });
  const url = `http://${tenant.name}.localhost/_platform/v0/${kind}/${name}`;
  const identity = signIdentity(tenant.key, { auth: GUEST, url, method: 'POST', body: new TextEncoder().encode(body), sequence: tenant.sequence++ });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: `/_platform/v0/${kind}/${name}`, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'x-tenant': tenant.name, 'x-start': tenant.start, [IDENTITY_HEADER]: identity } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function startPool(dir: string, entry: string, app: string): Promise<{ port: number; pid: number; stop(): void }> {
  writeFileSync(join(dir, 'host.js'), HOST);
  writeFileSync(join(dir, 'entry.js'), entry);
  writeFileSync(join(dir, 'app.js'), app);
  mkdirSync(join(dir, 'storage'), { recursive: true });
  writeFileSync(join(dir, 'config.capnp'), config(dir));
  const child = spawn(workerdBinary(), ['serve', join(dir, 'config.capnp'), '--experimental', '--control-fd=3'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /"port":(\d+)/.exec(out);
      if (found) resolve(Number(found[1]));
    });
    child.once('exit', (code) => reject(new Error(`the pool's workerd exited (${code}): ${stderr}`)));
  });
  return { port, pid: child.pid!, stop: () => child.kill('SIGKILL') };
}

/** Environment `index` of a pool: its own identity key, and the START record its isolate is given. */
function tenantOf(index: number, startOf: (identityKey: Uint8Array) => string): Tenant {
  const key = randomBytes(32);
  return { name: `env${index}`, key, sequence: 0, start: startOf(key) };
}

export async function poolRows(): Promise<Row[]> {
  const rows: Row[] = [];
  const work = mkdtempSync(join(tmpdir(), 'platform-bench-pool-'));
  try {
    const built = await build(databaseApp({ name: 'pooled', tables: { notes: { text: 'string' } }, server: SERVER }));
    const appPath = join(work, 'app.js');
    writeFileSync(appPath, built.files.get('server/index.js')!);
    const entryPath = await bundleWorkerEntry('workerd-app', join(work, 'entry'));
    const startOf = (key: Uint8Array) => JSON.stringify({ manifest: built.record.manifest, env: {}, cursorSecret: randomBytes(32).toString('hex'), identityKey: Buffer.from(key).toString('hex') });

    // The baseline: today's hosting, one process per environment (the hosting's own AppEngine), visited once.
    const engine = new AppEngine({ dir: join(work, 'engine'), storageDir: join(work, 'engine-storage'), entryPath, appPath, start: { manifest: built.record.manifest, env: {}, cursorSecret: randomBytes(32).toString('hex') }, deadlineMs: 10_000, graceMs: 1_000, startTimeoutMs: 30_000, memoryLimitBytes: 512 * 1024 * 1024, heapMb: 256 });
    mkdirSync(join(work, 'engine-storage'), { recursive: true });
    const coldStart = performance.now();
    const added = await engine.fetch(GUEST, { method: 'POST', url: 'http://one.localhost/_platform/v0/mutation/notes.add', headers: [['content-type', 'application/json']], body: new TextEncoder().encode('{"input":{"text":"hello"}}') });
    const processCold = performance.now() - coldStart;
    if (added.status !== 200) throw new Error(`the process engine answered ${added.status}: ${await added.text()}`);
    const listed = await engine.fetch(GUEST, { method: 'POST', url: 'http://one.localhost/_platform/v0/query/notes.list', headers: [['content-type', 'application/json']], body: new TextEncoder().encode('{"input":{}}') });
    await listed.text();
    const enginePid = Number(readFileSync(join(work, 'engine', 'workerd.pid'), 'utf8'));
    const perProcess = rss(enginePid);
    await engine.kill();
    rows.push({ name: 'one process per environment (today): resident memory of one, visited once (baseline)', value: perProcess / 1e6, unit: 'MB' });
    rows.push({ name: 'one process per environment: first visit (process start, app start, mutation)', value: processCold, unit: 'ms' });

    const entry = readFileSync(entryPath, 'utf8');
    const app = readFileSync(appPath, 'utf8');
    for (const size of SIZES) {
      const dir = join(work, `pool-${size}`);
      mkdirSync(dir, { recursive: true });
      const pool = await startPool(dir, entry, app);
      try {
        const idle = rss(pool.pid);
        const tenants = Array.from({ length: size }, (_, i) => tenantOf(i, startOf));
        const firsts: number[] = [];
        for (const tenant of tenants) {
          const first = await call(pool.port, tenant, 'mutation', 'notes.add', { text: `hello ${tenant.name}` });
          if (first.status !== 200) throw new Error(`${tenant.name} answered ${first.status}: ${first.text.slice(0, 500)}`);
          firsts.push(first.ms);
          const read = await call(pool.port, tenant, 'query', 'notes.list', {});
          if (read.status !== 200 || !read.text.includes(`hello ${tenant.name}`)) throw new Error(`${tenant.name} read ${read.status}: ${read.text.slice(0, 500)}`);
        }
        const resident = rss(pool.pid);
        const warm: number[] = [];
        for (let i = 0; i < 50; i++) warm.push((await call(pool.port, tenants[i % size]!, 'query', 'notes.list', {})).ms);
        rows.push({ name: `${size} environments in one process: resident memory (the idle process ${(idle / 1e6).toFixed(0)} MB)`, value: resident / 1e6, unit: 'MB' });
        rows.push({ name: `${size} environments in one process: per environment past the idle process`, value: (resident - idle) / 1e6 / size, unit: 'MB' });
        rows.push({ name: `${size} environments in one process: per environment against one process each (goal: 1,000 in < 4 GB)`, value: (resident - idle) / size / perProcess, unit: 'x' });
        rows.push({ name: `${size} environments in one process: first visit (isolate loaded, facet made, mutation), p50`, value: median(firsts), unit: 'ms' });
        rows.push({ name: `${size} environments in one process: a warm query, p50`, value: median(warm), unit: 'ms' });
        if (size > 1) {
          // One environment spins in a handler; another's query is sent while it does.
          const spinning = call(pool.port, tenants[0]!, 'query', 'bench.spin', { ms: SPIN_MS });
          await new Promise((done) => setTimeout(done, 100));
          const neighbour = await call(pool.port, tenants[1]!, 'query', 'notes.list', {});
          await spinning;
          rows.push({ name: `${size} environments in one process: a neighbour's query while one spins ${SPIN_MS} ms (no CPU limit in workerd)`, value: neighbour.ms, unit: 'ms' });
        }
      } finally {
        pool.stop();
      }
    }
  } finally {
    if (process.env.BENCH_POOL_KEEP) console.log(`kept: ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  return rows;
}
