/**
 * Data at size in workerd (issue 31, item 3): the reads of bench/data-app under `platform dev` (the
 * engine the CLI starts, as a child process) and hosted (a control plane process on loopback with the
 * app deployed to its preview), with 10k and 1M rows in its tables. Each read is a p50 and a ratio to a
 * trivial query (`bench.ping`) called right before each of its calls, so that both see the same load on
 * a busy machine; the 1M/10k ratio of those ratios has the goal < 2. Also the cold start over the data:
 * the engine started on a database of that size, to ready, and its first query and first read.
 *
 * Needs the `sqlite3` command-line shell (Debian: `apt-get install -y sqlite3`); not part of `npm test`.
 * The rows are written straight into the Durable Object's SQLite file while no engine runs, in one
 * transaction (INSERT … SELECT over a recursive CTE, the indexes dropped first and made again after),
 * so that 1M rows take seconds, not a million mutations. `BENCH_DATA_SIZES=10000,1000000` by default.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DevProcess } from '../src/testing/dev-process';
import { readTextTree } from '../src/adapters/node/templates';
import { build, deployBody } from '../src/testing/control-plane-apps';
import { cookieOf, hostedRequest, signInOverHttp, startPlaneProcess, type PlaneProcess } from '../src/testing/control-plane';
import { appDatabases, filesUnder } from './engine-files';
import { median, type Row } from './stats';

const APP = join(import.meta.dirname, 'data-app');
const SIZES = (process.env.BENCH_DATA_SIZES ?? '10000,1000000').split(',').map(Number);
const CALLS = 100;
/** Cold starts of the hosted engine per size (the control plane started again each time). */
const COLD = 3;
const TAGS = 100;

/** Each read, what it is, and what it answers (its rows' count): every tag holds more than 100 rows. */
const READS = [
  ['items.by_tag', 'find on a declared index (limit 10)', 10],
  ['notes.by_tag', 'find on an owned table (limit 10)', 10],
  ['items.page', 'page of 100', 100],
  ['items.count', 'count({ limit: 1 })', 1],
] as const;

/** Calls a query of the app and answers its result; throws on anything but 200. */
type Caller = (name: string, input: unknown) => Promise<unknown>;

const label = (size: number) => (size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`);

function sqlite(file: string, sql: string): string {
  const run = spawnSync('sqlite3', ['-bail', file], { input: sql, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.error) throw new Error(`bench/data-workerd.ts needs the sqlite3 shell (apt-get install -y sqlite3): ${run.error.message}`);
  if (run.status !== 0) throw new Error(`sqlite3 ${file} failed: ${run.stderr}`);
  return run.stdout;
}

/** The one app database under `dir`. */
function sqliteFile(dir: string): string {
  const found = appDatabases(dir);
  if (found.length !== 1) throw new Error(`expected one app .sqlite file under ${dir}, found ${JSON.stringify(found)}`);
  return found[0]!;
}

function bytesUnder(dir: string): number {
  return filesUnder(dir).reduce((total, path) => total + statSync(path).size, 0);
}

/**
 * `rows` rows in items and in notes (all `ownerId`'s, TAGS tags) in the stopped engine's database, in
 * one transaction: the indexes the runtime made are dropped, the rows inserted, the same indexes made again.
 */
function generate(file: string, rows: number, ownerId: string): void {
  const indexes = sqlite(file, `SELECT name || char(9) || sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('items', 'notes') AND sql IS NOT NULL;`)
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t') as [string, string]);
  if (indexes.length === 0) throw new Error('the app database has no declared index to drop and make again');
  const start = Date.UTC(2026, 0, 1);
  const series = `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ${rows})`;
  const owner = `'${ownerId.replaceAll("'", "''")}'`;
  sqlite(
    file,
    [
      'BEGIN;',
      ...indexes.map(([name]) => `DROP INDEX "${name}";`),
      `INSERT INTO "items" ("id", "createdAt", "updatedAt", "tag", "n") ${series} SELECT printf('i%025d', i), ${start} + i, ${start} + i, 't' || (i % ${TAGS}), i FROM s;`,
      `INSERT INTO "notes" ("id", "createdAt", "updatedAt", "ownerId", "tag") ${series} SELECT printf('n%025d', i), ${start} + i, ${start} + i, ${owner}, 't' || (i % ${TAGS}) FROM s;`,
      ...indexes.map(([, sql]) => `${sql};`),
      'COMMIT;',
      'PRAGMA wal_checkpoint(TRUNCATE);',
    ].join('\n'),
  );
}

/** `name` called CALLS times, each call right after a trivial one: the same load on both, on a busy machine. */
async function paired(call: Caller, name: string): Promise<{ read: number[]; ping: number[] }> {
  const read: number[] = [];
  const ping: number[] = [];
  const expected = READS.find(([one]) => one === name)?.[2];
  for (let i = 0; i < CALLS; i++) {
    let start = performance.now();
    await call('bench.ping', {});
    ping.push(performance.now() - start);
    start = performance.now();
    const result = await call(name, { tag: `t${(i * 37) % TAGS}` });
    read.push(performance.now() - start);
    if (result !== expected) throw new Error(`${name} answered ${JSON.stringify(result)}, not ${expected}: the read did not find the generated rows`);
  }
  return { read, ping };
}

/**
 * The warm reads: each once over first, then each read's p50 and its ratio to the p50 of the trivial
 * calls interleaved with it (a baseline measured under the same load, call by call).
 */
async function readRows(where: string, size: number, call: Caller, ratios: Map<string, number[]>): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [name] of READS) await paired(call, name);
  const pings: number[] = [];
  const reads: Row[] = [];
  for (const [name, what] of READS) {
    const { read, ping } = await paired(call, name);
    pings.push(...ping);
    const ratio = median(read) / median(ping);
    reads.push({ name: `${where}, ${label(size)} rows: ${what} p50`, value: median(read), unit: 'ms' });
    reads.push({ name: `${where}, ${label(size)} rows: ${what} / trivial query (interleaved)`, value: ratio, unit: 'x' });
    (ratios.get(what) ?? ratios.set(what, []).get(what)!).push(ratio);
  }
  rows.push({ name: `${where}, ${label(size)} rows: trivial query p50 (baseline, all interleaved calls)`, value: median(pings), unit: 'ms' });
  return [...rows, ...reads];
}

function ratioRows(where: string, ratios: Map<string, number[]>): Row[] {
  if (SIZES.length < 2) return [];
  return [...ratios].map(([what, values]) => ({ name: `${where}: ${what}, ratio at ${SIZES.at(-1)!.toLocaleString('en-US')} rows / at ${SIZES[0]!.toLocaleString('en-US')} (goal < 2)`, value: values.at(-1)! / values[0]!, unit: 'x' as const }));
}

async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const value = await work();
  return [performance.now() - start, value];
}

/** `platform dev` on a copy of the app: started once to make the database, stopped, filled, started again cold. */
async function devRows(): Promise<Row[]> {
  const rows: Row[] = [];
  const ratios = new Map<string, number[]>();
  for (const size of SIZES) {
    const root = mkdtempSync(join(tmpdir(), 'platform-bench-data-dev-'));
    cpSync(APP, root, { recursive: true });
    let dev = new DevProcess(['dev', '--json', '--port', '0'], root);
    try {
      let url = String((await dev.kind('preview.ready')).url);
      const call: Caller = async (name, input) => {
        const response = await fetch(new URL(`/_platform/v0/query/${name}`, url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
        const body = (await response.json()) as { result?: unknown; error?: unknown };
        if (response.status !== 200) throw new Error(`${name} answered ${response.status}: ${JSON.stringify(body.error)}`);
        return body.result;
      };
      const owner = String(await call('bench.me', {}));
      await dev.stop();
      const state = join(root, '.platform/state/dev');
      let start = performance.now();
      generate(sqliteFile(state), size, owner);
      rows.push({ name: `dev, ${label(size)} rows: generate them in the stopped engine's SQLite file (sqlite3, one transaction)`, value: performance.now() - start, unit: 'ms' });
      // Cold: `platform dev` started again over the data, to its preview ready (the engine answered its start), then the first queries.
      start = performance.now();
      dev = new DevProcess(['dev', '--json', '--port', '0'], root);
      url = String((await dev.kind('preview.ready')).url);
      rows.push({ name: `dev, ${label(size)} rows (${(bytesUnder(state) / 1e6).toFixed(0)} MB): platform dev start to preview.ready over them (build included)`, value: performance.now() - start, unit: 'ms' });
      rows.push({ name: `dev, ${label(size)} rows: first query (ping) after it`, value: (await timed(() => call('bench.ping', {})))[0], unit: 'ms' });
      rows.push({ name: `dev, ${label(size)} rows: first read (find on a declared index) after it`, value: (await timed(() => call('items.by_tag', { tag: 't1' })))[0], unit: 'ms' });
      rows.push(...(await readRows('dev', size, call, ratios)));
    } finally {
      await dev.stop();
      rmSync(root, { recursive: true, force: true });
    }
  }
  return [...rows, ...ratioRows('dev', ratios)];
}

/** The hosted app: deployed to a control plane's preview, the plane stopped, the data filled, the plane started again (its engine starts at the first request). */
async function hostedRows(): Promise<Row[]> {
  const rows: Row[] = [];
  const ratios = new Map<string, number[]>();
  const work = mkdtempSync(join(tmpdir(), 'platform-bench-data-hosted-'));
  const artifact = deployBody(await build(readTextTree(APP)));
  let plane: PlaneProcess | undefined;
  try {
    for (const size of SIZES) {
      // A control plane of its own for each size: its one app's data is the one facet file under its pool.
      const dataDir = join(work, `data-${size}`);
      plane = await startPlaneProcess(dataDir);
      const token = await signInOverHttp(plane, 'bench');
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const created = (await (await fetch(`${plane!.url}/v0/apps`, { method: 'POST', headers, body: JSON.stringify({ name: `bench-data-${label(size).toLowerCase()}` }) })).json()) as { app: { id: string; urls: { preview: string } } };
      const deployed = await fetch(`${plane!.url}/v0/apps/${created.app.id}/deployments`, { method: 'POST', headers, body: JSON.stringify(artifact) });
      if (deployed.status !== 201) throw new Error(`deploy failed: ${await deployed.text()}`);
      const path = new URL(created.app.urls.preview);
      let port = plane!.port;
      let cookie = '';
      // The visitor: a guest whose cookie the bench keeps, so that the owned rows are its own.
      const call: Caller = async (name, input) => {
        const answer = await hostedRequest(`http://${path.hostname}:${port}`, `/_platform/v0/query/${name}`, { method: 'POST', body: JSON.stringify({ input }), headers: cookie ? { cookie } : {} });
        if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
        if (!cookie) cookie = cookieOf(answer) ?? '';
        return (JSON.parse(answer.text) as { result: unknown }).result;
      };
      const owner = String(await call('bench.me', {}));
      if (!cookie) throw new Error('the hosted app set no guest cookie');
      plane!.child.kill('SIGTERM');
      await plane!.exited;
      plane = undefined;
      // A process of its own keeps the environment's data under apps/ (PLATFORM_HOSTING=process); the pool, under pool/.
      const own = join(dataDir, 'apps', created.app.id, 'preview');
      const storage = existsSync(own) ? own : join(dataDir, 'pool');
      let start = performance.now();
      generate(sqliteFile(storage), size, owner);
      rows.push({ name: `hosted, ${label(size)} rows: generate them in the stopped engine's SQLite file (sqlite3, one transaction)`, value: performance.now() - start, unit: 'ms' });
      // Cold, COLD times: the control plane started again; the environment's engine starts at its first request, over the data, then answers it.
      const cold: number[] = [];
      const first: number[] = [];
      for (let run = 0; run < COLD; run++) {
        if (plane) {
          plane.child.kill('SIGTERM');
          await plane.exited;
        }
        plane = await startPlaneProcess(dataDir);
        port = plane.port;
        cold.push((await timed(() => call('bench.ping', {})))[0]);
        first.push((await timed(() => call('items.by_tag', { tag: `t${run}` })))[0]);
      }
      rows.push({ name: `hosted, ${label(size)} rows (${(bytesUnder(storage) / 1e6).toFixed(0)} MB): cold engine start to ready and first query (ping), p50 of ${COLD}`, value: median(cold), unit: 'ms' });
      rows.push({ name: `hosted, ${label(size)} rows: first read (find on a declared index) after it, p50 of ${COLD}`, value: median(first), unit: 'ms' });
      rows.push(...(await readRows('hosted', size, call, ratios)));
      plane!.child.kill('SIGTERM');
      await plane!.exited;
      plane = undefined;
    }
  } finally {
    if (plane) {
      plane.child.kill('SIGTERM');
      await plane.exited;
    }
    rmSync(work, { recursive: true, force: true });
  }
  return [...rows, ...ratioRows('hosted', ratios)];
}

export async function dataWorkerdRows(): Promise<Row[]> {
  return [...(await devRows()), ...(await hostedRows())];
}
