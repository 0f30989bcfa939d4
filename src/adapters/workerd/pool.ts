/**
 * Many app environments per workerd process (issue 32): a few processes (two by default, one per core
 * of the machine it was built on) run the pool's host worker (worker/workerd-pool.ts), which loads each environment as an isolate of
 * its own at run time (the Worker Loader binding: no network, no Node, no binding but its `START`)
 * with its data in SQLite of its own (its `AppStore` is a facet of one host Durable Object per
 * environment). Each process has a folder of its own (`shared-<n>`, `alone-<digest>`: two workerd
 * processes may not share one), and an environment's files move to the folder of the process it is
 * placed in, while no process has them open. An environment is leased to one process at a time;
 * `AppEngine` serves it through the lease (`pool` in its options) as it serves a process of its own:
 * the same signed identities, deadlines, streams and sleep.
 *
 * What a shared process cannot do is stop one isolate: workerd enforces no CPU limit, so a handler
 * spinning in `while (true)` holds every isolate of its process, and an isolate past its heap limit
 * ends the whole process. So when a request to a process runs past its deadline and grace (`stalled`),
 * the process is ended (its requests in flight are answered 503, the next ones start it again), and
 * the environment whose request had been running the longest, the one the others queued behind, is
 * from then on leased a process of its own: it can stall no one again. A process that ends by itself
 * with requests in flight (a heap past its limit) moves its longest-running environment out the same
 * way. A process over its memory limit is restarted once nothing runs in it (at twice the limit, at
 * once), and the environment whose requests grew it by more than a quarter of the limit runs alone
 * from then on; one with nothing leased stops after `idleMs`, and an environment's isolate is let go
 * when its lease is given back (it sleeps).
 *
 * The lease source: each lease's modules and `START` record (with a fresh identity key) are served to
 * the pool's processes on loopback by this module's own HTTP server, to a request bearing the pool's
 * token only (the processes get it through their environment, never a file): a local process that
 * reaches a pool's port can name an environment, not give it code or keys, nor read them.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { AppStart } from '../../../worker/workerd-app';
import { DELETE_PATH, ID_PATH, LEASE_PATH, RELEASE_PATH, TENANT_HEADER, VERSION_HEADER, type LeaseRecord } from '../../../worker/protocol/pool';
import { WorkerdEngine, type EngineProcess } from './workerd-engine';

export interface PoolOptions {
  /** The pool's directory: a folder per process (its config, pid file and `storage`, the data of the environments placed in it), and `unplaced`. */
  dir: string;
  /**
   * Where the data goes instead, when given: a folder per process here (`<storageDir>/<slot>`, what
   * `storage` holds otherwise), and `unplaced`; `dir` then holds the processes' configs and pid files
   * only. `platform dev` keeps its data under `.platform/state/` and its processes under `.platform/engines/`.
   */
  storageDir?: string;
  /** The bundled trusted entry of an environment (worker/workerd-app.ts) and the pool's host worker (worker/workerd-pool.ts). */
  entryPath: string;
  hostPath: string;
  /** How many processes environments share (default 2). Environments moved out run in processes of their own besides. */
  processes?: number;
  /** V8's heap limit of each isolate, MiB. */
  heapMb: number;
  startTimeoutMs: number;
  /** A shared process holding more is restarted once nothing runs in it (at twice this, at once); see `judgeMemory`. */
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

/** Where a lease's record is kept: the environment and the lease's version. */
const recordOf = (key: string, version: string | null) => `${key}\n${version}`;

/** The namespace key of the host objects: their files are `<process folder>/storage/<this>/<id>.*`. */
const TENANT_NAMESPACE = 'platform-pool-tenant';

interface Flight {
  key: string;
  at: number;
  /** The process's resident bytes as the request was sent. */
  resident: number | undefined;
}

class PoolProcess {
  readonly leases = new Set<PoolLease>();
  /** Requests sent and not answered, oldest first. */
  readonly flights = new Set<Flight>();
  /** Requests whose connection broke (the process may be ending): still candidates until the end is known. */
  readonly broken: Flight[] = [];
  /** What each environment's requests added to the process's resident memory, in all (each request's growth, if it grew). */
  readonly growth = new Map<string, number>();
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
    /** Its folder under the pool's (`shared-<n>`, `alone-<digest>`): its config, pid file and `storage`, the data of the environments placed in it. */
    readonly slot: string,
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
    const { process } = this;
    const flight: Flight = { key: this.key, at: performance.now(), resident: process.engine.residentBytes() };
    process.flights.add(flight);
    return (broken) => {
      if (!process.flights.delete(flight)) return;
      if (!broken) {
        const resident = process.engine.residentBytes();
        if (resident !== undefined && flight.resident !== undefined && resident > flight.resident) process.growth.set(this.key, (process.growth.get(this.key) ?? 0) + resident - flight.resident);
        this.pool.judgeMemory(process, resident);
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
  /** Placements in progress, by environment: one at a time (its files may move). */
  readonly #placing = new Map<string, Promise<PoolProcess>>();
  /** Each environment's host object id (its files are named after it), once asked. */
  readonly #ids = new Map<string, Promise<string>>();
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
    this.#records.set(recordOf(tenant.key, version), { entry: this.#entry, app: readFileSync(tenant.appPath, 'utf8'), start: JSON.stringify(start) });
    const lease = new PoolLease(this, process, tenant.key, version, identityKey);
    process.leases.add(lease);
    clearTimeout(process.idle);
    return lease;
  }

  release(lease: PoolLease): void {
    this.#records.delete(recordOf(lease.key, lease.version));
    const { process } = lease;
    process.leases.delete(lease);
    // The isolate is let go (unless a newer lease of the same environment took its place).
    if (!process.ended) {
      void fetch(`http://127.0.0.1:${process.engine.port}${RELEASE_PATH}`, { method: 'POST', headers: { ...lease.headers, authorization: `Bearer ${this.#token}` } }).catch(() => undefined);
    }
    this.#endWhenIdle(process);
  }

  /** Ends a process once it has had nothing leased for the idle time (one started only to be asked something, too). */
  #endWhenIdle(process: PoolProcess): void {
    if (process.leases.size > 0 || process.ended) return;
    clearTimeout(process.idle);
    process.idle = setTimeout(() => {
      if (process.leases.size === 0) void process.end('its process had nothing leased');
    }, this.#options.idleMs ?? 30_000);
    process.idle.unref();
  }

  /** Ends now every process with nothing leased (what `idleMs` does later); resolves once they have exited. */
  async endIdle(): Promise<void> {
    await Promise.all([...this.#processes].filter((process) => process.leases.size === 0 && !process.ended).map((process) => process.end('its process had nothing leased')));
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
   * answer is handed over): past its limit with nothing else running (at twice it, whatever runs), the
   * process is restarted. The environment whose requests grew it the most, by more than a quarter of
   * the limit, runs alone from then on; when none did (many isolates, each small), nobody is moved:
   * the restart lets them all go, and each loads again on its next request.
   */
  judgeMemory(process: PoolProcess, resident = process.engine.residentBytes()): void {
    if (process.ended || resident === undefined) return;
    const limit = this.#limitOf(process);
    if (resident <= limit || (process.flights.size > 0 && resident <= 2 * limit)) return;
    if (process.only === undefined) {
      const [culprit, grew] = [...process.growth].reduce((most, entry) => (entry[1] > most[1] ? entry : most), ['', 0]);
      if (grew > limit / 4) this.#alone.add(culprit);
    }
    void process.end(`its process held ${Math.round(resident / 1048576)} MiB, over its limit of ${Math.round(limit / 1048576)} MiB, and was restarted`);
  }

  /**
   * The process an environment goes to: the one it is in, its own once moved out, else the least used
   * shared one; its files are brought into that process's folder first. One placement of an
   * environment at a time.
   */
  #processFor(key: string): Promise<PoolProcess> {
    const before = this.#placing.get(key) ?? Promise.resolve(undefined);
    const placed = before.catch(() => undefined).then(() => this.#place(key));
    const kept = placed.finally(() => {
      if (this.#placing.get(key) === kept) this.#placing.delete(key);
    });
    this.#placing.set(key, kept);
    return kept;
  }

  async #place(key: string): Promise<PoolProcess> {
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
      process = await this.#start(`alone-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`, key);
    } else {
      const shared = [...this.#processes].filter((candidate) => !candidate.ended && candidate.only === undefined);
      const keys = (candidate: PoolProcess) => [...this.#homes.values()].filter((home) => home === candidate).length;
      if (shared.length < (this.#options.processes ?? 2)) process = await this.#start(this.#freeSharedSlot());
      else process = shared.reduce((least, candidate) => (keys(candidate) < keys(least) ? candidate : least));
    }
    await this.#bring(key, process.slot);
    this.#homes.set(key, process);
    return process;
  }

  /** The first `shared-<n>` folder no running process uses. */
  #freeSharedSlot(): string {
    const used = new Set([...this.#processes].filter((process) => !process.ended).map((process) => process.slot));
    for (const name of this.#starting.keys()) used.add(name);
    let n = 0;
    while (used.has(`shared-${n}`)) n++;
    return `shared-${n}`;
  }

  /** The folder a slot's process keeps its environments' data in. */
  #storage(slot: string): string {
    return join(this.#storageRoot(slot), TENANT_NAMESPACE);
  }

  /** The folder a slot's process is given as its Durable Objects' storage. */
  #storageRoot(slot: string): string {
    return this.#options.storageDir !== undefined ? join(this.#options.storageDir, slot) : join(this.#options.dir, slot, 'storage');
  }

  /** The slot whose folder holds an environment's files (`unplaced`: data given to it before any process ran it), if any. */
  async #locate(key: string): Promise<{ slot: string; dir: string; id: string } | undefined> {
    const id = await this.#idOf(key);
    const slots = this.#options.storageDir ?? this.#options.dir;
    if (!existsSync(slots)) return undefined;
    for (const slot of readdirSync(slots)) {
      const dir = this.#storage(slot);
      if (existsSync(join(dir, `${id}.1.sqlite`)) || existsSync(join(dir, `${id}.facets`)) || existsSync(join(dir, `${id}.sqlite`))) return { slot, dir, id };
    }
    return undefined;
  }

  /**
   * Moves an environment's files into a slot's folder, when they are in another's: the environment is
   * open in no running process then (its home, if it had one, has exited; see `#place`).
   */
  async #bring(key: string, slot: string): Promise<void> {
    const found = await this.#locate(key);
    if (!found || found.slot === slot) return;
    const target = this.#storage(slot);
    mkdirSync(target, { recursive: true });
    for (const name of readdirSync(found.dir)) if (name.startsWith(`${found.id}.`)) renameSync(join(found.dir, name), join(target, name));
  }

  #start(name: string, only?: string): Promise<PoolProcess> {
    let starting = this.#starting.get(name);
    if (!starting) {
      starting = this.#spawn(name, only).finally(() => this.#starting.delete(name));
      this.#starting.set(name, starting);
    }
    return starting;
  }

  async #spawn(slot: string, only: string | undefined): Promise<PoolProcess> {
    const { port } = await this.#sourceServer();
    const dir = join(this.#options.dir, slot);
    const engine = await WorkerdEngine.start({
      dir,
      modules: [{ name: 'host.js', path: this.#options.hostPath }],
      // A folder of its own: two workerd processes may not share one (they lock the namespace's files).
      durableObject: { className: 'Tenant', binding: 'TENANT', uniqueKey: TENANT_NAMESPACE, storageDir: this.#storageRoot(slot) },
      loader: { sourceAddress: `127.0.0.1:${port}` },
      secrets: { TOKEN: this.#token },
      heapMb: this.#options.heapMb,
      // The trusted entry takes V8's gc() before an app loads (workerd-app.ts).
      exposeGc: true,
      compatibilityDate: '2025-09-01',
      startTimeoutMs: this.#options.startTimeoutMs,
    });
    const process = new PoolProcess(engine, slot, only);
    this.#processes.add(process);
    void engine.exited.then(() => this.#gone(process));
    // Between requests too (a timer, a stream that grows): at twice the limit it ends whatever runs.
    process.memory = setInterval(() => this.judgeMemory(process), 1_000);
    process.memory.unref();
    this.#endWhenIdle(process);
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
    for (const lease of process.leases) this.#records.delete(recordOf(lease.key, lease.version));
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
   * data from before the pool, or a copy of another environment's for a probe. It waits in the
   * `unplaced` folder until a process runs the environment. False when the environment has data
   * already (nothing is copied).
   */
  async adopt(key: string, database: string): Promise<boolean> {
    if (await this.#locate(key)) return false;
    const dir = this.#storage('unplaced');
    mkdirSync(dir, { recursive: true });
    const target = join(dir, `${await this.#idOf(key)}.1.sqlite`);
    // A database being written meanwhile (a pool's process, an engine) holds its lock for a moment: waited for.
    const source = new Database(database, { readonly: true, fileMustExist: true, timeout: 10_000 });
    try {
      await source.backup(target);
    } finally {
      source.close();
    }
    return true;
  }

  /** The SQLite file of an environment's data in the pool, if it has any (to copy it: `adopt`). */
  async database(key: string): Promise<string | undefined> {
    const found = await this.#locate(key);
    const path = found && join(found.dir, `${found.id}.1.sqlite`);
    return path && existsSync(path) ? path : undefined;
  }

  /**
   * Removes every file of an environment that runs alone or in no process (a probe's, once its lease
   * is given back): its process is ended first.
   */
  async discard(key: string): Promise<void> {
    const home = this.#homes.get(key);
    if (home) {
      if (!home.ended && home.only !== key) throw new Error(`${key} shares a process: its files cannot be removed while it runs.`);
      void home.end('its environment was discarded');
      await home.engine.exited;
    }
    this.#alone.delete(key);
    const found = await this.#locate(key);
    if (found) for (const name of readdirSync(found.dir)) if (name.startsWith(`${found.id}.`)) rmSync(join(found.dir, name), { force: true });
    if (found?.slot.startsWith('alone-') && !this.#homes.has(key)) {
      rmSync(join(this.#options.dir, found.slot), { recursive: true, force: true });
      rmSync(this.#storageRoot(found.slot), { recursive: true, force: true });
    }
  }

  /** An environment's host object id (its files are `<id>.*`), asked of a running process once. */
  #idOf(key: string): Promise<string> {
    let id = this.#ids.get(key);
    if (!id) {
      id = (async () => {
        const any = [...this.#processes].find((process) => !process.ended) ?? (await this.#start(this.#freeSharedSlot()));
        const answer = await fetch(`http://127.0.0.1:${any.engine.port}${ID_PATH}`, { headers: { [TENANT_HEADER]: key, authorization: `Bearer ${this.#token}` } });
        const body = (await answer.json()) as { id?: string };
        if (typeof body.id !== 'string' || !/^[0-9a-f]+$/.test(body.id)) throw new Error(`The pool did not name the data of ${key}.`);
        return body.id;
      })();
      id.catch(() => this.#ids.delete(key));
      this.#ids.set(key, id);
    }
    return id;
  }

  /** The lease source on loopback, started once. */
  #sourceServer(): Promise<{ server: Server; port: number }> {
    this.#source ??= new Promise((resolve, reject) => {
      const expected = Buffer.from(`Bearer ${this.#token}`);
      const server = createServer((request, response) => {
        const given = Buffer.from(request.headers.authorization ?? '');
        const url = new URL(request.url ?? '/', 'http://source');
        const record = given.length === expected.length && timingSafeEqual(given, expected) && url.pathname === LEASE_PATH ? this.#records.get(recordOf(url.searchParams.get('tenant') ?? '', url.searchParams.get('version'))) : undefined;
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
