/**
 * Hosted apps in workerd, on loopback: what one commit costs when the environment's database holds
 * ~100 MB against ~1 MB, and the control plane's memory while a hostile app and its visitors abuse it.
 * The control plane runs as its own process, as `npm start` runs it (its RSS read from /proc; the engines
 * are other processes again). Figures, with the goal in each name.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, databaseApp, deployBody, hostileFiles } from '../src/testing/control-plane-apps';
import { hostedRequest, sendHuge, signInOverHttp, startPlaneProcess, type PlaneProcess } from '../src/testing/control-plane';
import { appDatabases, filesUnder } from './engine-files';
import { residentBytes } from './proc';
import { median, type Row } from './stats';

const MiB = 1024 * 1024;
const COMMITS = 200;
/** Rows written per fill call, and their size: 20 MiB a call, under the 32 MiB writeBytes budget and the 2 MB value cap. */
const FILL_ROWS = 40;
const FILL_ROW_BYTES = 512 * 1024;

const BIG_DATA = `import { defineServer, mutation } from 'platform/server';
export default defineServer({
  mutations: {
    'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => { await ctx.db.table('notes').insert({ text: input.text }); } }),
    'filler.add': mutation({ input: { rows: 'number', bytes: 'number', seed: 'string' }, handler: async (ctx, input) => {
      const table = ctx.db.table('filler');
      for (let i = 0; i < input.rows; i++) await table.insert({ data: (input.seed + i + ':').padEnd(input.bytes, 'x') });
    } }),
  },
});
`;

function bigDataApp(): Record<string, string> {
  return databaseApp({ name: 'big-data', tables: { notes: { text: 'string' }, filler: { data: 'string' } }, server: BIG_DATA, client: "document.body.textContent = 'big data';\n" });
}

async function deploy(started: PlaneProcess, token: string, name: string, files: Record<string, string>): Promise<string> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const created = (await (await fetch(`${started.url}/v0/apps`, { method: 'POST', headers, body: JSON.stringify({ name }) })).json()) as { app: { id: string; urls: { preview: string } } };
  const answer = await fetch(`${started.url}/v0/apps/${created.app.id}/deployments`, { method: 'POST', headers, body: JSON.stringify(deployBody(await build(files))) });
  if (answer.status !== 201) throw new Error(`deploy of ${name} failed: ${await answer.text()}`);
  return created.app.urls.preview;
}

async function mutate(origin: string, name: string, input: unknown): Promise<number> {
  const answer = await hostedRequest(origin, `/_platform/v0/mutation/${name}`, { method: 'POST', body: JSON.stringify({ input }) });
  if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return answer.status;
}

/** Fills the environment's database through the app until it holds `mib` MiB of filler rows. */
async function fill(origin: string, fromMib: number, toMib: number): Promise<void> {
  const perCall = (FILL_ROWS * FILL_ROW_BYTES) / MiB;
  for (let mib = fromMib; mib < toMib; mib += perCall) {
    const rows = Math.min(FILL_ROWS, Math.ceil(((toMib - mib) * MiB) / FILL_ROW_BYTES));
    await mutate(origin, 'filler.add', { rows, bytes: FILL_ROW_BYTES, seed: `${mib}:` });
  }
}

/** The pooled environments' databases: each a facet's SQLite file under the pool's processes. */
function facetFiles(dataDir: string): Set<string> {
  return new Set(appDatabases(join(dataDir, 'pool')));
}

/**
 * The bytes of the environment's Durable Object files (SQLite and its WAL): with a process of its own
 * under apps/<app>/preview; in the pool, its facet's file, the one `before` (the facets before it was
 * deployed) did not have.
 */
function storedBytes(dataDir: string, origin: string, before: ReadonlySet<string>): number {
  const appId = `app_${/app-([a-z2-7]+)--preview/.exec(origin)![1]}`;
  const own = filesUnder(join(dataDir, 'apps', appId, 'preview'));
  if (own.length > 0) return own.reduce((total, path) => total + statSync(path).size, 0);
  const made = [...facetFiles(dataDir)].filter((path) => !before.has(path));
  if (made.length !== 1) throw new Error(`expected the environment's one facet file under ${dataDir}/pool, found ${JSON.stringify(made)}`);
  return [made[0]!, `${made[0]}-wal`, `${made[0]}-shm`].filter((path) => existsSync(path)).reduce((total, path) => total + statSync(path).size, 0);
}

async function commitP50(origin: string): Promise<number> {
  for (let i = 0; i < 20; i++) await mutate(origin, 'notes.add', { text: `warm ${i}` });
  const times: number[] = [];
  for (let i = 0; i < COMMITS; i++) {
    const start = performance.now();
    await mutate(origin, 'notes.add', { text: `note ${i}` });
    times.push(performance.now() - start);
  }
  return median(times);
}

/** Commit cost at ~1 MB and at ~100 MB of data in the same environment. */
async function commitRows(started: PlaneProcess, dataDir: string, token: string): Promise<Row[]> {
  const before = facetFiles(dataDir);
  const origin = await deploy(started, token, 'big-data', bigDataApp());
  await fill(origin, 0, 1);
  const smallSize = storedBytes(dataDir, origin, before) / 1e6;
  const small = await commitP50(origin);
  await fill(origin, 1, 100);
  const largeSize = storedBytes(dataDir, origin, before) / 1e6;
  const large = await commitP50(origin);
  return [
    { name: `commit of one small row, database ~1 MB (${smallSize.toFixed(1)} MB on disk): p50 of ${COMMITS}`, value: small, unit: 'ms' },
    { name: `commit of one small row, database ~100 MB (${largeSize.toFixed(1)} MB on disk): p50 of ${COMMITS}`, value: large, unit: 'ms' },
    { name: 'commit cost, 100 MB against 1 MB (goal < 1.5)', value: large / small, unit: 'x' },
  ];
}

/** GETs `path` on a hosted origin over a raw socket from `localAddress` and reads the answer slowly: `bytesPerTick` every 50 ms, for `ms`. */
function slowReader(origin: string, path: string, ms: number, bytesPerTick: number, localAddress: string): Promise<number> {
  const url = new URL(origin);
  return new Promise((resolve) => {
    let read = 0;
    const socket = connect({ port: Number(url.port), host: '127.0.0.1', localAddress });
    socket.on('error', () => undefined);
    socket.write(`GET ${path} HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`);
    socket.pause();
    const timer = setInterval(() => {
      let chunk: Buffer | null;
      let taken = 0;
      while (taken < bytesPerTick && (chunk = socket.read() as Buffer | null)) taken += chunk.byteLength;
      read += taken;
    }, 50);
    setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      resolve(read);
    }, ms);
  });
}


/**
 * The control plane's RSS while a hostile app and its visitors abuse it: a 1.5 GB chunked body to a
 * hosted URL and to the deploy route, 15 slow readers of a 64 MiB stream, 256 MiB buffers held across
 * requests, and `while (true)`.
 */
async function abuseRows(started: PlaneProcess, token: string): Promise<Row[]> {
  const origin = await deploy(started, token, 'hostile', hostileFiles(undefined, { liveConnections: 16, streamedBytes: 64 * MiB }));
  const appId = /app-([a-z2-7]+)--preview/.exec(origin)![1];
  await hostedRequest(origin, '/api/node');
  const port = Number(new URL(origin).port);
  const host = new URL(origin).host;
  const huge = 1536 * MiB;
  const rssOf = () => {
    const bytes = residentBytes(started.child.pid!);
    if (bytes === undefined) throw new Error(`no VmRSS for process ${started.child.pid}`);
    return bytes;
  };
  const before = rssOf();
  let peak = before;
  let phasePeak = before;
  const sampler = setInterval(() => {
    const rss = rssOf();
    peak = Math.max(peak, rss);
    phasePeak = Math.max(phasePeak, rss);
  }, 20);
  const rows: Row[] = [];
  /** One abuse at a time, so that each one's growth is its own; the total peak covers them all. */
  const phase = async (name: string, work: () => Promise<string>) => {
    const start = rssOf();
    phasePeak = start;
    const outcome = await work();
    rows.push({ name: `abuse: ${name} (${outcome}): control plane peak RSS growth, MB`, value: (phasePeak - start) / 1e6, unit: 'count' });
  };
  try {
    await phase('1.5 GB chunked body to a hosted URL', async () => {
      const sent = await sendHuge(port, '/api/echo', huge, { host });
      return `HTTP ${sent.status}, ${Math.round(sent.written / MiB)} MiB sent`;
    });
    await phase('1.5 GB chunked body to the deploy route', async () => {
      const sent = await sendHuge(port, `/v0/apps/app_${appId}/deployments`, huge, { authorization: `Bearer ${token}` });
      return `HTTP ${sent.status}, ${Math.round(sent.written / MiB)} MiB sent`;
    });
    await phase('15 slow readers of a 64 MiB stream for 6 s', async () => {
      // From five sources, three each: one visitor holds at most a quarter of the 16 slots.
      const read = await Promise.all(Array.from({ length: 15 }, (_, i) => slowReader(origin, '/api/stream/64', 6000, 16 * 1024, `127.0.${20 + Math.floor(i / 3)}.1`)));
      return `${Math.round(read.reduce((a, b) => a + b, 0) / MiB)} MiB read in all`;
    });
    await phase('256 MiB buffers held across 4 requests', async () => {
      // Each answer says how many buffers the engine holds; past its memory limit the watchdog restarts it.
      const held: string[] = [];
      for (let i = 0; i < 4; i++) {
        const answer = await hostedRequest(origin, '/api/hold').catch(() => ({ status: 0, text: '' }));
        held.push(answer.status === 200 ? String((JSON.parse(answer.text) as { held: number }).held) : `HTTP ${answer.status}`);
        await new Promise((done) => setTimeout(done, 1200));
      }
      return `held ${held.join(', ')}`;
    });
    // A handler that never yields holds its isolate until the watchdog ends the engine (deadline + grace).
    await phase('`while (true)`', async () => `HTTP ${(await hostedRequest(origin, '/api/spin').catch(() => ({ status: 0 }))).status}`);
    const health = await fetch(`${started.url}/v0/health`);
    rows.push({ name: `control plane RSS before the abuse run, MB (health after it: HTTP ${health.status})`, value: before / 1e6, unit: 'count' });
    rows.push({ name: 'control plane peak RSS growth during the whole abuse run, MB (goal flat)', value: (peak - before) / 1e6, unit: 'count' });
    rows.push({ name: 'control plane peak RSS during the whole abuse run, MB (goal < 500)', value: peak / 1e6, unit: 'count' });
    return rows;
  } finally {
    clearInterval(sampler);
  }
}

export async function hostingRows(): Promise<Row[]> {
  const work = mkdtempSync(join(tmpdir(), 'platform-bench-hosting-'));
  const dataDir = join(work, 'data');
  const started = await startPlaneProcess(dataDir);
  try {
    const token = await signInOverHttp(started, 'bench');
    // The abuse run comes first, so its figures are the control plane's own and not the bench's fill work.
    const abuse = await abuseRows(started, token);
    return [...(await commitRows(started, dataDir, token)), ...abuse];
  } finally {
    started.child.kill('SIGTERM');
    await started.exited;
    rmSync(work, { recursive: true, force: true });
  }
}
