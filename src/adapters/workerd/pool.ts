/**
 * Many app environments per workerd process (issue 32): a few processes (one per core by default)
 * run the pool's host worker (worker/workerd-pool.ts), which loads each environment as an isolate of
 * its own at run time (the Worker Loader binding: no network, no Node, no binding but its `START`)
 * with its data in SQLite of its own (its `AppStore` is a facet of one host Durable Object per
 * environment, all under the pool's `storage` directory). An environment is leased to one process at
 * a time; `AppEngine` serves it through the lease (`pool` in its options) as it serves a process of
 * its own: the same signed identities, deadlines, streams and sleep.
 *
 * What a shared process cannot do is stop one isolate: workerd enforces no CPU limit, so a handler
 * spinning in `while (true)` holds every isolate of its process, and an isolate past its heap limit
 * ends the whole process. So when a request to a process runs past its deadline and grace (`stalled`),
 * the process is ended (its requests in flight are answered 503, the next ones start it again), and
 * the environment whose request had been running the longest, the one the others queued behind, is
 * from then on leased a process of its own: it can stall no one again. A process that ends by itself
 * with requests in flight (a heap past its limit) moves its longest-running environment out the same
 * way. A process over its memory limit is restarted once nothing runs in it (at twice the limit, at
 * once); one with nothing leased stops after `idleMs`.
 *
 * The lease source: each lease's modules and `START` record (with a fresh identity key) are served to
 * the pool's processes on loopback by this module's own HTTP server, to a request bearing the pool's
 * token only (the processes get it through their environment, never a file): a local process that
 * reaches a pool's port can name an environment, not give it code or keys, nor read them.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { AppStart } from '../../../worker/workerd-app';
import { DELETE_PATH, ID_PATH, LEASE_PATH, RELEASE_PATH, TENANT_HEADER, VERSION_HEADER, type LeaseRecord } from '../../../worker/protocol/pool';
import { WorkerdEngine, type EngineProcess } from './workerd-engine';

export interface PoolOptions {
  /** The pool's directory: a folder per process (its config and pid file) and `storage`, every environment's data. */
  dir: string;
  /** The bundled trusted entry of an environment (worker/workerd-app.ts) and the pool's host worker (worker/workerd-pool.ts). */
  entryPath: string;
  hostPath: string;
  /** How many processes environments share (default 2). Environments moved out run in processes of their own besides. */
  processes?: number;
  /** V8's heap limit of each isolate, MiB. */
  heapMb: number;
  startTimeoutMs: number;
  /** A shared process holding more is restarted once nothing runs in it (at twice this, at once), and the environment whose request left it there runs alone from then on. */
  memoryLimitBytes: number;
  /** The same for a process running one environment alone (default `memoryLimitBytes`): that environment's own limit. */
  aloneMemoryLimitBytes?: number;
  /** How long a process with nothing leased keeps running (default 30 s). */
  idleMs?: number;
}

/** An environment to lease: its name in the pool, its START record (without the lease's identity key) and its server bundle. */
export interface PoolTenant {
  key: string;
  start: Omit<AppStart, 'identityKey'>;
  appPath: string;
}

/** The namespace key of the host objects: their files are `storage/<this>/<id>.*`. */
const TENANT_NAMESPACE = 'platform-pool-tenant';

interface Flight {
  key: string;
  at: number;
}

class PoolProcess {
  readonly leases = new Set<PoolLease>();
  /** Requests sent and not answered, oldest first. */
  readonly flights = new Set<Flight>();
  /** Requests whose connection broke (the process may be ending): still candidates until the end is known. */
  readonly broken: Flight[] = [];
  /** Why the pool ended it (undefined: it ended by itself, or still runs). */
  endedBy: string | undefined;
  ended = false;
  idle: ReturnType<typeof setTimeout> | undefined;
  memory: ReturnType<typeof setInterval> | undefined;
  /**
   * Settles as soon as the pool decides to end the process, or it ends by itself: its leases' engines
   * take no further request from then on (the next one starts a new lease, which waits for the exit).
   */
  readonly ending: Promise<void>;
  #ending!: () => void;

  constructor(
    readonly engine: WorkerdEngine,
    readonly index: number,
    /** The environment this process runs alone (one moved out of the shared processes). */
    readonly only: string | undefined,
  ) {
    this.ending = new Promise((resolve) => (this.#ending = resolve));
    void engine.exited.then(() => this.#ending());
  }

  /** The environment whose request has been running the longest (among those cut off with the process too). */
  oldest(): string | undefined {
    const candidates = [...this.flights, ...this.broken];
    return candidates.length ? candidates.reduce((first, flight) => (flight.at < first.at ? flight : first)).key : undefined;
  }

  end(reason: string): Promise<void> {
    if (!this.ended) {
      this.ended = true;
      this.endedBy = reason;
    }
    this.#ending();
    return this.engine.kill();
  }
}

/** One environment's lease of a pooled process: where `AppEngine` sends its requests. */
export class PoolLease implements EngineProcess {
  readonly headers: Record<string, string>;
  #released = false;

  constructor(
    readonly pool: WorkerdPool,
    readonly process: PoolProcess,
    readonly key: string,
    readonly version: string,
    readonly identityKey: Uint8Array,
  ) {
    this.headers = { [TENANT_HEADER]: key, [VERSION_HEADER]: version };
  }

  get port(): number {
    return this.process.engine.port;
  }

  /** Settles once its process is ending (see `PoolProcess.ending`), not only once it has exited. */
  get exited(): Promise<void> {
    return this.process.ending;
  }

  /** The process id (the same for every environment of the process). */
  get pid(): number | undefined {
    return this.process.engine.pid;
  }

  /** The request's end tells the pool: the last one out of a process over its memory limit is its culprit. */

  lostReason(): string | undefined {
    return this.process.endedBy ?? this.process.engine.lostReason();
  }

  /** The pool judges the memory of its processes; one environment's share cannot be read. */
  residentBytes(): undefined {
    return undefined;
  }

  began(): (broken?: boolean) => void {
    const flight: Flight = { key: this.key, at: performance.now() };
    const { process } = this;
    process.flights.add(flight);
    return (broken) => {
      if (!process.flights.delete(flight)) return;
      if (!broken) {
        this.pool.judgeMemory(process, this.key);
        return;
      }
      // Its connection broke: if the process is ending by itself, this request may be why.
      process.broken.push(flight);
      setTimeout(() => process.broken.splice(process.broken.indexOf(flight) >>> 0, 1), 2_000).unref();
    };
  }

  stalled(): void {
    this.pool.stalled(this);
  }

  /** Gives the lease back: the process goes on serving its other environments. */
  kill(): Promise<void> {
    if (!this.#released) {
      this.#released = true;
      this.pool.release(this);
    }
    return Promise.resolve();
  }
}

export class WorkerdPool {
  readonly #options: PoolOptions;
  readonly #token = randomBytes(32).toString('hex');
  readonly #entry: string;
  /** Lease records by `key\nversion`, served to the processes. */
  readonly #records = new Map<string, LeaseRecord>();
  readonly #processes = new Set<PoolProcess>();
  /** The process each environment is in (it may not be in two at once: they would open the same files). */
  readonly #homes = new Map<string, PoolProcess>();
  /** Environments moved out of the shared processes after one stalled or ended them. */
  readonly #alone = new Set<string>();
  #starting = new Map<string, Promise<PoolProcess>>();
  #next = 0;
  #source: Promise<{ server: Server; port: number }> | undefined;
  #stopped = false;

  constructor(options: PoolOptions) {
    this.#options = options;
    this.#entry = readFileSync(options.entryPath, 'utf8');
  }

  /** Environments moved out to processes of their own. */
  get alone(): ReadonlySet<string> {
    return this.#alone;
  }

  /** The processes running now. */
  get processes(): number {
    return [...this.#processes].filter((process) => !process.ended).length;
  }

  /** The resident memory of every process of the pool, in bytes (Linux). */
  residentBytes(): number {
    return [...this.#processes].reduce((sum, process) => sum + (process.ended ? 0 : (process.engine.residentBytes() ?? 0)), 0);
  }

  /**
   * Leases an environment: its isolate loads in a process on its first request, with a fresh identity
   * key. `alone`: in a process of its own from the start (an artifact not yet known to behave, a probe).
   */
  async lease(tenant: PoolTenant, options: { alone?: boolean } = {}): Promise<PoolLease> {
    if (this.#stopped) throw new Error('The pool is stopped.');
    if (options.alone) this.#alone.add(tenant.key);
    const process = await this.#processFor(tenant.key);
    const identityKey = randomBytes(32);
    const version = randomBytes(12).toString('hex');
    const start: AppStart = { ...tenant.start, identityKey: Buffer.from(identityKey).toString('hex') };
    this.#records.set(`${tenant.key}\n${version}`, { entry: this.#entry, app: readFileSync(tenant.appPath, 'utf8'), start: JSON.stringify(start) });
    const lease = new PoolLease(this, process, tenant.key, version, identityKey);
    process.leases.add(lease);
    clearTimeout(process.idle);
    return lease;
  }

  release(lease: PoolLease): void {
    this.#records.delete(`${lease.key}\n${lease.version}`);
    const { process } = lease;
    process.leases.delete(lease);
    // The isolate is let go (unless a newer lease of the same environment took its place).
    if (!process.ended) {
      void fetch(`http://127.0.0.1:${process.engine.port}${RELEASE_PATH}`, { method: 'POST', headers: { ...lease.headers, authorization: `Bearer ${this.#token}` } }).catch(() => undefined);
    }
    if (process.leases.size === 0 && !process.ended) {
      clearTimeout(process.idle);
      // A probe's process ends with its lease; a culprit's, as a shared one does, once idle.
      process.idle = setTimeout(() => {
        if (process.leases.size === 0) void process.end('its process had nothing leased');
      }, this.#options.idleMs ?? 30_000);
      process.idle.unref();
    }
  }

  /**
   * A request through `lease` ran past its deadline and grace: its process is stuck in synchronous
   * code. It is ended, and the environment whose request had run the longest runs alone from now on.
   */
  stalled(lease: PoolLease): void {
    const { process } = lease;
    if (process.ended) return;
    const culprit = process.oldest() ?? lease.key;
    if (process.only === undefined) this.#alone.add(culprit);
    void process.end('a handler ran past its deadline and stalled its process, which was restarted');
  }

  #limitOf(process: PoolProcess): number {
    return process.only === undefined ? this.#options.memoryLimitBytes : (this.#options.aloneMemoryLimitBytes ?? this.#options.memoryLimitBytes);
  }

  /**
   * Memory is judged as each request to a process ends (as a process of its own judges it as each
   * answer is handed over): past its limit with nothing else running, the process is restarted, and
   * the environment whose request was the last one out runs alone from then on.
   */
  judgeMemory(process: PoolProcess, key: string): void {
    if (process.ended || process.flights.size > 0) return;
    const resident = process.engine.residentBytes();
    const limit = this.#limitOf(process);
    if (resident === undefined || resident <= limit) return;
    if (process.only === undefined) this.#alone.add(key);
    void process.end(`its process held ${Math.round(resident / 1048576)} MiB, over its limit of ${Math.round(limit / 1048576)} MiB, and was restarted`);
  }

  /** The process an environment goes to: the one it is in, its own once moved out, else the least used shared one. */
  async #processFor(key: string): Promise<PoolProcess> {
    for (;;) {
      const home = this.#homes.get(key);
      if (!home) break;
      if (!home.ended && (home.only === key || !this.#alone.has(key))) return home;
      // Moved out, or ending: the old process must be gone before the data opens elsewhere.
      await home.engine.exited;
      if (this.#homes.get(key) === home) this.#homes.delete(key);
    }
    let process: PoolProcess;
    if (this.#alone.has(key)) {
      process = await this.#start(`alone:${key}`, key);
    } else {
      const shared = [...this.#processes].filter((candidate) => !candidate.ended && candidate.only === undefined);
      const keys = (candidate: PoolProcess) => [...this.#homes.values()].filter((home) => home === candidate).length;
      if (shared.length < (this.#options.processes ?? 2)) process = await this.#start(`shared:${this.#next++}`);
      else process = shared.reduce((least, candidate) => (keys(candidate) < keys(least) ? candidate : least));
    }
    // Another lease of the same environment may have placed it meanwhile.
    const placed = this.#homes.get(key);
    if (placed && !placed.ended) return placed;
    this.#homes.set(key, process);
    return process;
  }

  #start(name: string, only?: string): Promise<PoolProcess> {
    let starting = this.#starting.get(name);
    if (!starting) {
      starting = this.#spawn(only).finally(() => this.#starting.delete(name));
      this.#starting.set(name, starting);
    }
    return starting;
  }

  async #spawn(only: string | undefined): Promise<PoolProcess> {
    const { port } = await this.#sourceServer();
    const index = this.#next++;
    const dir = join(this.#options.dir, `process-${index}`);
    const engine = await WorkerdEngine.start({
      dir,
      modules: [{ name: 'host.js', path: this.#options.hostPath }],
      durableObject: { className: 'Tenant', binding: 'TENANT', uniqueKey: TENANT_NAMESPACE, storageDir: join(this.#options.dir, 'storage') },
      loader: { sourceAddress: `127.0.0.1:${port}` },
      secrets: { TOKEN: this.#token },
      heapMb: this.#options.heapMb,
      // The trusted entry takes V8's gc() before an app loads (workerd-app.ts).
      exposeGc: true,
      compatibilityDate: '2025-09-01',
      startTimeoutMs: this.#options.startTimeoutMs,
    });
    const process = new PoolProcess(engine, index, only);
    this.#processes.add(process);
    void engine.exited.then(() => this.#gone(process));
    const limit = this.#limitOf(process);
    process.memory = setInterval(() => {
      const resident = engine.residentBytes();
      if (resident === undefined || process.ended) return;
      if (resident > 2 * limit || (resident > limit && process.flights.size === 0)) {
        void process.end(`its process held ${Math.round(resident / 1048576)} MiB, over its limit of ${Math.round(limit / 1048576)} MiB, and was restarted`);
      }
    }, 1_000);
    process.memory.unref();
    return process;
  }

  /** A process ended: one that ended by itself with requests in flight (a heap past its limit) moves its longest-running environment out. */
  #gone(process: PoolProcess): void {
    clearInterval(process.memory);
    clearTimeout(process.idle);
    const selfEnded = !process.ended;
    process.ended = true;
    if (selfEnded && process.only === undefined) {
      const culprit = process.oldest();
      if (culprit !== undefined) this.#alone.add(culprit);
    }
    process.flights.clear();
    process.broken.length = 0;
    this.#processes.delete(process);
    for (const [key, home] of this.#homes) if (home === process) this.#homes.delete(key);
    for (const lease of process.leases) this.#records.delete(`${lease.key}\n${lease.version}`);
  }

  /**
   * Deletes an environment's data, in the process it is in (or any other: it is open nowhere). Its
   * leases must have been given back.
   */
  async forget(key: string): Promise<void> {
    const home = this.#homes.get(key);
    const process = home && !home.ended ? home : await this.#processFor(key);
    const answer = await fetch(`http://127.0.0.1:${process.engine.port}${DELETE_PATH}`, { method: 'POST', headers: { [TENANT_HEADER]: key, authorization: `Bearer ${this.#token}` } });
    if (answer.status !== 204) throw new Error(`The pool could not delete the data of ${key} (HTTP ${answer.status}).`);
    this.#alone.delete(key);
  }

  /**
   * Gives an environment that has no data in the pool yet the data of an SQLite file (a consistent
   * copy, made with SQLite's backup, of a database another process may be writing): an environment's
   * data from before the pool, or a copy of another environment's for a probe. False when the
   * environment has data already (nothing is copied).
   */
  async adopt(key: string, database: string): Promise<boolean> {
    const { dir, id } = await this.dataFiles(key);
    const target = join(dir, `${id}.1.sqlite`);
    if (existsSync(target) || existsSync(join(dir, `${id}.facets`))) return false;
    mkdirSync(dir, { recursive: true });
    const source = new Database(database, { readonly: true, fileMustExist: true });
    try {
      await source.backup(target);
    } finally {
      source.close();
    }
    return true;
  }

  /** The SQLite file of an environment's data in the pool, if it has any (to copy it: `adopt`). */
  async database(key: string): Promise<string | undefined> {
    const { dir, id } = await this.dataFiles(key);
    const path = join(dir, `${id}.1.sqlite`);
    return existsSync(path) ? path : undefined;
  }

  /**
   * Removes every file of an environment that runs in no process (a probe's, once its lease is given
   * back and its process has ended).
   */
  async discard(key: string): Promise<void> {
    const home = this.#homes.get(key);
    if (home) {
      if (!home.ended && home.only !== key) throw new Error(`${key} shares a process: its files cannot be removed while it runs.`);
      void home.end('its environment was discarded');
      await home.engine.exited;
    }
    const { dir, id } = await this.dataFiles(key);
    this.#alone.delete(key);
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) if (name.startsWith(`${id}.`)) rmSync(join(dir, name), { force: true });
  }

  /** Where an environment's data lives: its host object's files, `<dir>/storage/platform-pool-tenant/<id>.*` (the facet's is `<id>.1.sqlite`). */
  async dataFiles(key: string): Promise<{ dir: string; id: string }> {
    const any = [...this.#processes].find((process) => !process.ended) ?? (await this.#start(`shared:${this.#next++}`));
    const answer = await fetch(`http://127.0.0.1:${any.engine.port}${ID_PATH}`, { headers: { [TENANT_HEADER]: key, authorization: `Bearer ${this.#token}` } });
    const body = (await answer.json()) as { id?: string };
    if (typeof body.id !== 'string' || !/^[0-9a-f]+$/.test(body.id)) throw new Error(`The pool did not name the data of ${key}.`);
    return { dir: join(this.#options.dir, 'storage', TENANT_NAMESPACE), id: body.id };
  }

  /** The lease source on loopback, started once. */
  #sourceServer(): Promise<{ server: Server; port: number }> {
    this.#source ??= new Promise((resolve, reject) => {
      const expected = Buffer.from(`Bearer ${this.#token}`);
      const server = createServer((request, response) => {
        const given = Buffer.from(request.headers.authorization ?? '');
        const url = new URL(request.url ?? '/', 'http://source');
        const record = given.length === expected.length && timingSafeEqual(given, expected) && url.pathname === LEASE_PATH ? this.#records.get(`${url.searchParams.get('tenant')}\n${url.searchParams.get('version')}`) : undefined;
        if (!record) {
          response.writeHead(404).end();
          return;
        }
        const body = JSON.stringify(record);
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      });
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        resolve({ server, port: typeof address === 'object' && address ? address.port : 0 });
      });
      server.unref();
    });
    return this.#source;
  }

  /** Ends every process and the source. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all([...this.#processes].map((process) => process.end('the pool stopped')));
    const source = await this.#source;
    source?.server.close();
  }
}
