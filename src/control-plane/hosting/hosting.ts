/**
 * Deployed apps, served by Host header: `<app>--preview.localhost:<port>` is the preview of an app and
 * `<app>.localhost:<port>` its production. Each environment is a V8 isolate of its own running the
 * same runtime as the playground, in a small pool of shared workerd processes (adapters/workerd/pool.ts;
 * or, with PLATFORM_HOSTING=process, a workerd process of its own), with its data in its own SQLite
 * Durable Object. A visitor is a guest whose identity comes from a cookie the control plane signs:
 * `ctx.auth` is derived from nothing the browser can forge.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { ArtifactRecord } from '../../core/build';
import type { Environment } from '../../core/deploy';
import { limitsOf, failedCall, type Auth, errorResponse } from '../../core/runtime';
import type { ArtifactStore } from '../artifacts';
import { BodyTooLargeError, readLimited } from '../body-limit';
import { readIncoming } from '../incoming-body';
import { writeAtomic } from '../files';
import { hmac, sameSecret, type Secrets } from '../secrets';
import { nodeSha256 } from '../../adapters/node/hash';
import { AppEngine, type StartFailure } from '../../adapters/workerd/app-engine';
import { bundleWorkerEntry } from '../../adapters/workerd/workerd-engine';
import { WorkerdPool } from '../../adapters/workerd/pool';
import { contentType } from '../../adapters/workerd/content-types';
import { assetPath, isRuntimePath } from '../../core/local';
import { CallLogs, takeCallRecord } from '../../adapters/workerd/call-log';
import { runtimeErrorFromBody } from '../../modules/wire';
import { clientSource } from '../rate-limit';
import { NODE_HEADER_PREFIX } from '../nodes';
import { INSPECT_PREFIX, type HostedInspection } from '../../../worker/protocol/inspection';

export const GUEST_COOKIE = '__platform_guest';
/** The most returning guests whose checked cookie the hosting keeps (`#guests`). */
const GUESTS_KEPT = 10_000;

export interface HostedTarget {
  appId: string;
  environment: Environment;
}

/** The visitor nobody signed in: a guest identity, and the cookie that makes it when the request had none. */
export interface GuestVisitor {
  auth: Auth;
  setCookie?: string;
}

/** What hosting asks of app sign-in (app-auth.ts implements it): the signed-in visitor's `ctx.auth`, and the answers of `/__platform/` paths. */
export interface AppAuthHook {
  /** `ctx.auth` of the person the request's app session cookie signs in, or undefined (a guest). */
  user(request: Request, target: HostedTarget): Promise<Auth | undefined>;
  /** Answers a request under `/__platform/` on an app's origin; `guest` is the visitor when nobody is signed in. */
  serve(request: Request, target: HostedTarget, guest: () => GuestVisitor): Promise<Response>;
}


export interface HostingOptions {
  dataDir: string;
  artifacts: ArtifactStore;
  secrets: Secrets;
  /** The app's lifecycle state and the artifact an environment serves (undefined state: no such app). */
  lookup(appId: string, environment: Environment): Promise<{ state?: 'active' | 'disabled' | 'deleted' | 'deleting'; artifactId?: string }>;
  /** The environment values of an app's environment, in clear. */
  envValues(appId: string, environment: Environment): Promise<Record<string, string>>;
  /** Overrides every app's handler deadline (tests of runaway handlers use a short one). */
  handlerDeadlineMs?: number;
  /** How long past the deadline a handler may run before its thread is ended. */
  graceMs?: number;
  /** How long an app may take to start (load its module, open its database). */
  startTimeoutMs?: number;
  /** The resident memory past which an app's engine is ended and restarted (default 512 MiB). */
  memoryLimitMb?: number;
  /** The bytes each app environment's database (rows and objects) may grow to (default 1 GiB, `DEFAULT_LIMITS.maxStoredBytes`). */
  maxStoredBytes?: number;
  /** People signed in to apps (app-auth.ts): who a visitor with an app session is, and the platform's `/__platform/` paths. */
  appAuth?: AppAuthHook;
  /**
   * How long an environment's engine may go unused before it sleeps: its process ends and its memory
   * returns to the machine; the next request starts it again on the same data (default
   * `DEFAULT_ENGINE_IDLE_MS`; 0 keeps engines awake).
   */
  idleMs?: number;
  /**
   * Where environments run: in a pool of shared workerd processes (docs/control-plane.md, "Many
   * environments per process": `processes` shared ones, each restarted past `memoryLimitMb`), or, with
   * `false`, each in a workerd process of its own. Default: the pool, unless PLATFORM_HOSTING=process.
   */
  pool?: false | { processes?: number; memoryLimitMb?: number };
}

/** The hosting's pool settings: the option, else the environment's choice (PLATFORM_HOSTING=process: a process each). */
function poolSettings(option: HostingOptions['pool']): false | { processes?: number; memoryLimitMb?: number } {
  if (option !== undefined) return option;
  return process.env.PLATFORM_HOSTING === 'process' ? false : {};
}

/** How long an engine goes unused before it sleeps, unless the control plane is told otherwise. */
export const DEFAULT_ENGINE_IDLE_MS = 120_000;

/** Whether a request header (its name in lower case) reaches the app: not cookies (the guest identity, the app session), the control plane nodes' own, nor a pseudo-header. */
const reachesApp = (name: string) => name !== 'cookie' && !name.startsWith(NODE_HEADER_PREFIX) && !name.startsWith(':');

/**
 * The request's headers the app's engine is given (`reachesApp`). Over HTTP they are read from Node's
 * message as it arrived (the Request made from it holds the same), so no Fetch Headers object is built
 * for them on every call.
 */
function passedHeaders(incoming: IncomingMessage | undefined, request: Request): Array<[string, string]> {
  if (!incoming) return [...request.headers].filter(([name]) => reachesApp(name));
  const raw = incoming.rawHeaders;
  const headers: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (reachesApp(name)) headers.push([name, raw[i + 1]!]);
  }
  return headers;
}

/** Random bytes for new visitors' guest ids, drawn from the system's CSPRNG a page at a time rather than 16 bytes per visitor. */
let guestBytes = Buffer.alloc(0);
let guestOffset = 0;
function newGuestId(): string {
  if (guestOffset + 16 > guestBytes.byteLength) {
    guestBytes = randomBytes(4096);
    guestOffset = 0;
  }
  const id = guestBytes.toString('base64url', guestOffset, guestOffset + 16);
  guestBytes.fill(0, guestOffset, guestOffset + 16);
  guestOffset += 16;
  return id;
}

/**
 * Who a live connection or streamed response holds its `liveConnections` slot for (one visitor holds at
 * most its share, live.ts): a signed-in person by their user, a guest by its source network
 * (`clientSource`: IPv4 /24, IPv6 /64), cookie or not. A guest cookie costs nothing (any request
 * without one gets a new one), so counting by cookie would let one source hold every slot.
 */
function slotHolder(user: Auth | undefined, address: string | undefined): string {
  return user ? `user:${user.appUserId}` : `source:${clientSource(address ?? 'local')}`;
}

function page(status: number, title: string, text: string): Response {
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body style="font-family:system-ui;margin:3rem"><h1>${escape(title)}</h1><p>${escape(text)}</p></body></html>`;
  return new Response(html, { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
}

export class Hosting {
  /** Each environment's recent calls, for its owner (`platform logs`, the Deploy panel). */
  readonly calls = new CallLogs();
  readonly #options: HostingOptions;
  readonly #processes = new Map<string, AppEngine>();
  readonly #swaps = new Map<string, Promise<void>>();
  /** Puts unused engines to sleep (see `idleMs`). */
  readonly #sleeper: ReturnType<typeof setInterval> | undefined;
  /** The shared processes environments run in (made at the first start), unless each has its own. */
  readonly #poolSettings: false | { processes?: number; memoryLimitMb?: number };
  #pool: Promise<WorkerdPool> | undefined;
  /** An environment's data from before the pool, being moved in (once, before its first pooled start). */
  readonly #moves = new Map<string, Promise<void>>();

  constructor(options: HostingOptions) {
    this.#options = options;
    this.#poolSettings = poolSettings(options.pool);
    const idleMs = options.idleMs ?? DEFAULT_ENGINE_IDLE_MS;
    if (idleMs > 0) {
      this.#sleeper = setInterval(() => this.sleepIdle(idleMs), Math.max(250, Math.min(idleMs / 2, 10_000)));
      this.#sleeper.unref();
    }
  }

  /**
   * Ends the engines nobody has used for `idleMs` (the sleeper's round; also callable directly). Each
   * leaves its environment at once, and its end is queued like a swap, so the next request for it waits
   * for the old process to have ended before a new one opens the same data. Answers how many slept.
   */
  sleepIdle(idleMs: number): number {
    let slept = 0;
    for (const [key, engine] of this.#processes) {
      const ended = engine.sleepIfIdle(idleMs);
      if (!ended) continue;
      slept++;
      this.#processes.delete(key);
      const previous = this.#swaps.get(key) ?? Promise.resolve();
      this.#swaps.set(key, previous.then(() => ended).then(() => undefined, () => undefined));
    }
    return slept;
  }

  /** The process serving an environment now (a pool's shared one, or its own), if it is awake. */
  enginePid(appId: string, environment: Environment): number | undefined {
    return this.#processes.get(`${appId}:${environment}`)?.pid;
  }

  /**
   * The SQLite file that holds an environment's data (its facet's in the pool, else its own engine's),
   * if it has any: for an operator's backup (copy it with SQLite's backup, it may be written meanwhile).
   */
  async databaseOf(appId: string, environment: Environment): Promise<string | undefined> {
    if (!this.pooled) return this.#processDatabase(appId, environment);
    return (await (await this.#poolOf()).database(this.#poolKey(appId, environment))) ?? this.#processDatabase(appId, environment);
  }

  /** How many environments have an engine awake now. */
  get awake(): number {
    return this.#processes.size;
  }

  /** Where an environment's Durable Object keeps its SQLite files. */
  storagePath(appId: string, environment: Environment): string {
    return join(this.#options.dataDir, 'apps', appId, environment);
  }

  #engineDir(name: string): string {
    return join(this.#options.dataDir, 'engines', name);
  }

  /** The server bundle of an artifact as a module file, kept under its hash. */
  #serverModule(record: ArtifactRecord): string | undefined {
    const entry = record.files['server/index.js'];
    if (!entry) return undefined;
    const path = join(this.#options.dataDir, 'modules', `${entry.sha256}.mjs`);
    if (!existsSync(path)) {
      const bytes = this.#options.artifacts.blob(entry.sha256);
      if (!bytes) return undefined;
      writeAtomic(path, bytes, 0o644);
    }
    return path;
  }

  #secret(appId: string, environment: Environment): string {
    return Buffer.from(hmac(this.#options.secrets.cursorKey, `cursor:${appId}:${environment}`), 'base64url').toString('hex');
  }

  /** Whether environments run in the pool's shared processes. */
  get pooled(): boolean {
    return this.#poolSettings !== false;
  }

  #poolOf(): Promise<WorkerdPool> {
    const settings = this.#poolSettings || {};
    this.#pool ??= (async () => {
      const [entryPath, hostPath] = await Promise.all([bundleWorkerEntry('workerd-app', this.#engineDir('entry')), bundleWorkerEntry('workerd-pool', this.#engineDir('entry'))]);
      return new WorkerdPool({
        dir: join(this.#options.dataDir, 'pool'),
        entryPath,
        hostPath,
        processes: settings.processes ?? 2,
        heapMb: 256,
        startTimeoutMs: this.#options.startTimeoutMs ?? 30_000,
        memoryLimitBytes: (settings.memoryLimitMb ?? 2048) * 1024 * 1024,
        // An environment moved out runs under the limit a process of its own has.
        aloneMemoryLimitBytes: (this.#options.memoryLimitMb ?? 512) * 1024 * 1024,
        // A process with nothing awake in it sleeps as an environment does.
        idleMs: this.#options.idleMs || DEFAULT_ENGINE_IDLE_MS,
      });
    })();
    return this.#pool;
  }

  /** An environment's name in the pool. */
  #poolKey(appId: string, environment: Environment): string {
    return `${appId}:${environment}`;
  }

  /** The SQLite file of an environment's data from before the pool (a process of its own kept it), if any. */
  #processDatabase(appId: string, environment: Environment): string | undefined {
    const dir = join(this.storagePath(appId, environment), 'platform-app-store');
    if (!existsSync(dir)) return undefined;
    const name = readdirSync(dir).find((file) => file.endsWith('.sqlite') && file !== 'metadata.sqlite');
    return name === undefined ? undefined : join(dir, name);
  }

  /**
   * Moves an environment's data from before the pool into it, once, before its first pooled start: a
   * consistent copy (SQLite's backup), then the old folder is kept beside it as `<environment>.process`
   * (removed with the app).
   */
  #moveIn(appId: string, environment: Environment): Promise<void> {
    const key = this.#poolKey(appId, environment);
    let move = this.#moves.get(key);
    if (!move) {
      move = (async () => {
        const database = this.#processDatabase(appId, environment);
        if (!database) return;
        await (await this.#poolOf()).adopt(key, database);
        const old = this.storagePath(appId, environment);
        rmSync(`${old}.process`, { recursive: true, force: true });
        renameSync(old, `${old}.process`);
      })().finally(() => this.#moves.delete(key));
      this.#moves.set(key, move);
    }
    return move;
  }

  /**
   * An engine for an environment. `pooled`: its name in the pool (`alone`: in a process of its own);
   * otherwise a process of its own in `dir` over `storageDir`.
   */
  async #newEngine(appId: string, environment: Environment, record: ArtifactRecord, storageDir: string, dir: string, pooled?: { key: string; alone?: boolean }): Promise<AppEngine | StartFailure> {
    const appPath = this.#serverModule(record);
    if (!appPath) return { code: 'module_invalid', message: 'The artifact has no server module (server/index.js).' };
    const deadlineMs = this.#options.handlerDeadlineMs ?? limitsOf(record.manifest).handlerDeadlineMs;
    return new AppEngine({
      dir,
      storageDir,
      ...(pooled ? { pool: { pool: await this.#poolOf(), ...pooled } } : {}),
      entryPath: await bundleWorkerEntry('workerd-app', this.#engineDir('entry')),
      appPath,
      start: {
        manifest: record.manifest,
        env: await this.#options.envValues(appId, environment),
        cursorSecret: this.#secret(appId, environment),
        ...(this.#options.handlerDeadlineMs ? { handlerDeadlineMs: this.#options.handlerDeadlineMs } : {}),
        ...(this.#options.maxStoredBytes ? { maxStoredBytes: this.#options.maxStoredBytes } : {}),
      },
      deadlineMs,
      graceMs: this.#options.graceMs ?? 1000,
      startTimeoutMs: this.#options.startTimeoutMs ?? 30_000,
      memoryLimitBytes: (this.#options.memoryLimitMb ?? 512) * 1024 * 1024,
      heapMb: 256,
    });
  }

  /** The engine of an environment's live data: in the pool (its data from before moved in first), or a process of its own. */
  async #liveEngine(appId: string, environment: Environment, record: ArtifactRecord): Promise<AppEngine | StartFailure> {
    if (!this.pooled) return this.#newEngine(appId, environment, record, this.storagePath(appId, environment), this.#engineDir(`${appId}.${environment}`));
    await this.#moveIn(appId, environment);
    return this.#newEngine(appId, environment, record, this.storagePath(appId, environment), this.#engineDir(`${appId}.${environment}`), { key: this.#poolKey(appId, environment) });
  }

  /**
   * Checks that an artifact can serve an environment without touching it: it starts on a copy of the
   * environment's data (the module loads, the schema fits the data) and answers a runtime request. In
   * the pool it runs in a process of its own: an artifact not yet known to behave stalls no one.
   */
  async probe(appId: string, environment: Environment, record: ArtifactRecord): Promise<StartFailure | { code: 'runtime_unhealthy'; message: string } | undefined> {
    const dir = this.#engineDir(`probe-${randomBytes(8).toString('hex')}`);
    const storageDir = join(dir, 'storage');
    let probeKey: string | undefined;
    let engine: AppEngine | StartFailure;
    if (this.pooled) {
      const pool = await this.#poolOf();
      probeKey = `probe:${randomBytes(8).toString('hex')}`;
      const live = (await pool.database(this.#poolKey(appId, environment))) ?? this.#processDatabase(appId, environment);
      if (live) await pool.adopt(probeKey, live);
      engine = await this.#newEngine(appId, environment, record, storageDir, dir, { key: probeKey, alone: true });
    } else {
      mkdirSync(storageDir, { recursive: true });
      const live = this.storagePath(appId, environment);
      if (existsSync(live)) cpSync(live, storageDir, { recursive: true });
      engine = await this.#newEngine(appId, environment, record, storageDir, dir);
    }
    try {
      if (!(engine instanceof AppEngine)) return engine;
      try {
        const failure = await engine.ready();
        if (failure) return failure;
        const answer = await engine.fetch(this.#guest(appId, environment, 'probe'), { method: 'POST', url: 'http://probe.localhost/_platform/v0/query/__platform.probe', headers: [['content-type', 'application/json']], body: new TextEncoder().encode('{"input":{}}') });
        const body = (await answer.json().catch(() => undefined)) as { protocol?: string } | undefined;
        if (answer.status !== 404 || body?.protocol !== 'platform.runtime.v0') {
          return { code: 'runtime_unhealthy', message: `The app serves its assets but its runtime answered a request with HTTP ${answer.status}.` };
        }
        return undefined;
      } finally {
        await engine.kill();
      }
    } finally {
      if (probeKey) await (await this.#poolOf()).discard(probeKey);
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Makes an environment's next request start the app again (a new artifact, new environment values). */
  restart(appId: string, environment: Environment): Promise<void> {
    const key = `${appId}:${environment}`;
    const previous = this.#swaps.get(key) ?? Promise.resolve();
    const swap = previous.then(async () => {
      const old = this.#processes.get(key);
      this.#processes.delete(key);
      await old?.close();
    });
    this.#swaps.set(key, swap);
    return swap;
  }

  /**
   * Makes an environment serve another artifact on its own data: the old engine ends, the new one
   * starts on the live data and must answer ready before it takes a request. When it cannot (its
   * schema does not fit data written since the probe, say), it is ended and the environment's next
   * request starts the artifact the records still name: the previous version goes on serving.
   */
  activate(appId: string, environment: Environment, record: ArtifactRecord): Promise<StartFailure | undefined> {
    const key = `${appId}:${environment}`;
    const previous = this.#swaps.get(key) ?? Promise.resolve();
    const switched = previous.then(async (): Promise<StartFailure | undefined> => {
      const old = this.#processes.get(key);
      this.#processes.delete(key);
      await old?.close();
      const made = await this.#liveEngine(appId, environment, record);
      if (!(made instanceof AppEngine)) return made;
      const failure = await made.ready();
      if (failure) {
        await made.kill();
        return failure;
      }
      this.#processes.set(key, made);
      return undefined;
    });
    this.#swaps.set(key, switched.then(() => undefined, () => undefined));
    return switched;
  }

  /** An owner's read of an environment's data (its tables, a page of rows, the state export), answered by its engine between calls. */
  async inspect(target: HostedTarget, artifactId: string, view: 'state' | 'export', query: Record<string, string> = {}): Promise<HostedInspection | StartFailure> {
    const process = await this.#process(target, artifactId);
    if (!(process instanceof AppEngine)) return process;
    const failure = await process.ready();
    if (failure) return failure;
    const search = new URLSearchParams(query).toString();
    const answer = await process.fetch(this.#guest(target.appId, target.environment, 'inspector'), { method: 'GET', url: `http://inspect.localhost${INSPECT_PREFIX}${view}${search ? `?${search}` : ''}`, headers: [] });
    const body = (await answer.json().catch(() => undefined)) as HostedInspection | { error?: { code?: string; message?: string } } | undefined;
    if (body && 'kind' in body) return body;
    const error = runtimeErrorFromBody(answer.status, body);
    return { code: 'runtime_not_ready', message: error ? error.message : `The app answered the read with HTTP ${answer.status}.` };
  }

  /** Stops an app's environments and destroys their data, preview first (application delete). */
  async destroy(appId: string): Promise<void> {
    for (const environment of ['preview', 'production'] as const) {
      await this.restart(appId, environment);
      if (this.pooled) await (await this.#poolOf()).forget(this.#poolKey(appId, environment));
      rmSync(this.storagePath(appId, environment), { recursive: true, force: true });
      rmSync(this.#engineDir(`${appId}.${environment}`), { recursive: true, force: true });
    }
    rmSync(join(this.#options.dataDir, 'apps', appId), { recursive: true, force: true });
    this.calls.forget(`${appId}:`);
  }

  async #process(target: HostedTarget, artifactId: string): Promise<AppEngine | StartFailure> {
    const key = `${target.appId}:${target.environment}`;
    await this.#swaps.get(key);
    let process = this.#processes.get(key);
    if (!process) {
      const record = this.#options.artifacts.record(artifactId);
      if (!record) return { code: 'module_invalid', message: `The artifact ${artifactId} is not kept.` };
      // Another request may have made it while this one waited for the entry's bundle.
      const made = await this.#liveEngine(target.appId, target.environment, record);
      if (!(made instanceof AppEngine)) return made;
      process = this.#processes.get(key);
      if (!process) {
        process = made;
        this.#processes.set(key, process);
      }
    }
    return process;
  }

  /**
   * Guests of the last requests, by app, environment and signed cookie: the guest id the cookie's
   * signature was found to bind there, and the guest's frozen identity. A returning visitor's request
   * then costs no HMAC and no SHA-256. At most GUESTS_KEPT; past it, started again from empty (a flood
   * of new visitors cannot grow it). Only cookies found valid are kept.
   */
  readonly #guests = new Map<string, { guestId: string; auth: Auth }>();

  /** A guest identity for this app and environment only. */
  #guest(appId: string, environment: Environment, guestId: string): Auth {
    const appUserId = `guest:${nodeSha256(`${appId}:${environment}:${guestId}`).slice(0, 24)}`;
    return Object.freeze({ appUserId, kind: 'guest' as const, roles: Object.freeze([]), permissions: Object.freeze([]), workspaceIds: Object.freeze([]), sessionId: guestId, id: appUserId }) as unknown as Auth;
  }

  /** The visitor's guest id and identity from the signed cookie, or a new one with the cookie to set. */
  #visitor(request: Request, target: HostedTarget): { guestId: string; auth: Auth; setCookie?: string } {
    const cookies = request.headers.get('cookie') ?? '';
    const raw = cookies.split(/;\s*/).find((c) => c.startsWith(`${GUEST_COOKIE}=`))?.slice(GUEST_COOKIE.length + 1);
    const bind = (id: string) => hmac(this.#options.secrets.cookieKey, `guest:${target.appId}:${target.environment}:${id}`);
    if (raw) {
      const key = `${target.appId}\u0000${target.environment}\u0000${raw}`;
      const known = this.#guests.get(key);
      if (known) return known;
      const [id, signature] = raw.split('.');
      if (id && signature && /^[A-Za-z0-9_-]{22}$/.test(id) && sameSecret(signature, bind(id))) {
        const found = { guestId: id, auth: this.#guest(target.appId, target.environment, id) };
        if (this.#guests.size >= GUESTS_KEPT) this.#guests.clear();
        this.#guests.set(key, found);
        return found;
      }
    }
    const guestId = newGuestId();
    return { guestId, auth: this.#guest(target.appId, target.environment, guestId), setCookie: `${GUEST_COOKIE}=${guestId}.${bind(guestId)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000` };
  }

  /**
   * Serves a request for a deployed app's environment. Over HTTP, `incoming` is Node's message of the
   * request: its body is read from it (counted the same way), not through a web stream. `serving`: what
   * the caller's lookup of the target answered (the front door looks it up to route), so it is not looked up twice.
   */
  async serve(request: Request, target: HostedTarget, incoming?: IncomingMessage, visitorAddress?: string, serving?: Awaited<ReturnType<HostingOptions['lookup']>>): Promise<Response> {
    const { state, artifactId } = serving ?? (await this.#options.lookup(target.appId, target.environment));
    if (!state || state === 'deleted' || state === 'deleting') return page(404, 'No such app', 'Nothing is served at this address.');
    if (state === 'disabled') return page(503, 'App disabled', 'Its owner has taken this app offline.');
    if (!artifactId) return page(404, 'Nothing deployed yet', `This app has no ${target.environment} deployment.`);
    const record = this.#options.artifacts.record(artifactId);
    if (!record) return page(500, 'Artifact missing', 'The deployed artifact is not kept.');
    const url = new URL(request.url);
    const { appAuth } = this.#options;
    if (appAuth && url.pathname.startsWith('/__platform/')) {
      return appAuth.serve(request, target, () => {
        const visitor = this.#visitor(request, target);
        return { auth: visitor.auth, ...(visitor.setCookie ? { setCookie: visitor.setCookie } : {}) };
      });
    }
    if (isRuntimePath(url.pathname)) return this.#runtime(request, target, record, artifactId, incoming, visitorAddress ?? incoming?.socket?.remoteAddress);
    return this.#withGuestCookie(request, target, this.#asset(request, record, url.pathname));
  }

  /**
   * The page's document makes its visitor a guest (a guest cookie when it has none and is not signed in
   * to the app): its scripts' first calls, sent at once (the queries, the live stream, the auth state),
   * then carry the one cookie. Minted by those calls instead, each made a guest of its own, and a page's
   * live stream could belong to another guest than its queries, which it then never refreshed.
   */
  async #withGuestCookie(request: Request, target: HostedTarget, response: Response): Promise<Response> {
    if (!(response.headers.get('content-type') ?? '').startsWith('text/html') || (await this.#options.appAuth?.user(request, target))) return response;
    const visitor = this.#visitor(request, target);
    if (visitor.setCookie) response.headers.append('set-cookie', visitor.setCookie);
    return response;
  }

  async #runtime(request: Request, target: HostedTarget, record: ArtifactRecord, artifactId: string, incoming: IncomingMessage | undefined, address: string | undefined): Promise<Response> {
    const started = performance.now();
    // A person signed in to the app (a live app session), else a guest from the guest cookie.
    const user = await this.#options.appAuth?.user(request, target);
    const visitor = user ? undefined : this.#visitor(request, target);
    const limits = limitsOf(record.manifest);
    const declared = Number(request.headers.get('content-length') ?? NaN);
    const tooLarge = (size: string) => {
      const refused = errorResponse(failedCall(413, 'request_too_large', `The request body is ${size}, over the requestBytes budget of ${limits.requestBytes}.`));
      // The rest of the body is not read: the client is asked to close the connection.
      refused.headers.set('connection', 'close');
      return refused;
    };
    let body: Uint8Array | undefined;
    let response: Response | undefined;
    if (Number.isFinite(declared) && declared > limits.requestBytes) {
      response = tooLarge(`${declared} bytes`);
    } else if (request.method !== 'GET' && request.method !== 'HEAD') {
      // Counted as it streams: a chunked body with no Content-Length is never held past the budget.
      try {
        body = incoming ? await readIncoming(incoming, limits.requestBytes) : await readLimited(request, limits.requestBytes);
      } catch (error) {
        if (!(error instanceof BodyTooLargeError)) throw error;
        response = tooLarge(`more than ${limits.requestBytes} bytes`);
      }
    }
    if (!response) {
      const process = await this.#process(target, artifactId);
      if (!(process instanceof AppEngine)) {
        response = errorResponse(failedCall(503, 'app_unavailable', process.message));
      } else {
        // Headers pass through except cookies (the guest identity, the app session): the app never sees them.
        const headers = passedHeaders(incoming, request);
        const auth = user ?? visitor!.auth;
        response = await process.fetch(auth, { method: request.method, url: request.url, headers, ...(body ? { body } : {}), visitor: slotHolder(user, address) });
      }
    }
    const call = takeCallRecord(request, response, started, user ? 'user' : 'guest');
    if (call) this.calls.record(`${target.appId}:${target.environment}`, call);
    if (!visitor?.setCookie) return response;
    // The answer is this request's own (made by the engine's proxy or here): its headers take the
    // cookie as they are, unless they are immutable, and then it is copied.
    try {
      response.headers.append('set-cookie', visitor.setCookie);
      return response;
    } catch {
      const headers = new Headers(response.headers);
      headers.append('set-cookie', visitor.setCookie);
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    }
  }

  #asset(request: Request, record: ArtifactRecord, pathname: string): Response {
    if (request.method !== 'GET' && request.method !== 'HEAD') return new Response('Method not allowed', { status: 405, headers: { allow: 'GET, HEAD' } });
    // The same routing as a local server's (dev, preview): one place says which file serves a path.
    const path = assetPath(record.manifest, pathname, (candidate) => record.files[candidate] !== undefined);
    const entry = path === undefined ? undefined : record.files[path];
    if (path === undefined || !entry) return page(404, 'Not found', `Nothing is served at ${pathname}.`);
    const etag = `"${entry.sha256}"`;
    const headers = { 'content-type': contentType(path), etag, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' };
    if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers });
    const bytes = this.#options.artifacts.blob(entry.sha256);
    if (!bytes) return page(500, 'Blob missing', `The artifact's ${path} is not kept.`);
    return new Response(request.method === 'HEAD' ? null : (bytes as BodyInit), { status: 200, headers: { ...headers, 'content-length': String(bytes.byteLength) } });
  }

  async close(): Promise<void> {
    clearInterval(this.#sleeper);
    const engines = [...this.#processes.values()];
    this.#processes.clear();
    await Promise.all(engines.map((engine) => engine.kill()));
    const pool = this.#pool;
    this.#pool = undefined;
    await (await pool)?.stop();
  }
}
