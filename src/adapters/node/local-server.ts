/**
 * A local server of `platform dev` or `platform preview`: HTTP on loopback serving one generation of an
 * app the way the control plane hosts it, with THE SAME ENGINE (AppEngine over a pool, pool.ts: one
 * workerd process whose Worker Loader loads each generation's server, with the trusted entry
 * worker/workerd-app.ts, as an isolate of its own; the app's data in the SQLite of one Durable Object
 * facet under `.platform/state/<mode>`). The visitor is the persona chosen with `platform auth as`;
 * `/__platform/` answers as that persona. A new generation whose server side differs starts the app
 * again on the same data, in a new isolate of the same process (a server edit loads a module, it does
 * not start a process); when it cannot start (an incompatible schema change, a module that does not
 * load) the previous one is started again.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { lingerOnClose } from './lingering-close';
import { AppEngine, type StartFailure } from '../workerd/app-engine';
import { contentType } from '../workerd/content-types';
import { bundleWorkerEntry } from '../workerd/workerd-engine';
import { WorkerdPool } from '../workerd/pool';
import { ConfinedWriter } from './confined-writer';
import { canonicalJson, sha256Hex } from '../../core/hash';
import { limitsOf, failedCall, errorResponse, localPlatformResponse, personaAuth, type Auth, type PersonaName } from '../../core/runtime';
import { personaFromText, RECOVERY_DIR, ADMIN_PATH, ADMIN_PROTOCOL, ADMIN_SECRET_HEADER, assetPath, isRuntimePath, personaBanner, enginePath, PERSONA_FILE, statePath, type LocalServer, type LocalServerOptions, type PromoteOutcome } from '../../core/local';
import { CallLogs, takeCallRecord } from '../workerd/call-log';
import { CALL_CURSOR } from '../../core/deploy';
import { type Generation, sameServer, SERVER_BUNDLE } from '../../core/generation';


interface Serving {
  generation: Generation;
  /** What decides whether the engine must restart: the server side (the core's `sameServer`) and the env values. */
  side: ServerSide;
  engine: AppEngine;
}

/** What the engines of a local server are made with: the trusted entry, bundled, and the pool that loads them. */
interface EngineParts {
  entryPath: string;
  pool: WorkerdPool;
}

/** The namespace folder of the Durable Object of an engine that ran as a process of its own (before the pool): its SQLite file is moved into the pool once. */
const PROCESS_STORE = 'platform-app-store';

/** What an engine runs: a generation's server side with the env values it started with. */
interface ServerSide {
  generation: Generation;
  env: string;
}

const sideOf = (generation: Generation, env: Record<string, string>): ServerSide => ({ generation, env: canonicalJson(env) });

/** Whether an engine running `a` runs `b` as well. */
const sameSide = (a: ServerSide | undefined, b: ServerSide): boolean => a !== undefined && a.env === b.env && sameServer(a.generation, b.generation);

/** The engine's V8 heap limit (MiB), and the resident memory past which its process is restarted between requests. */
const HEAP_MB = 256;
const MEMORY_LIMIT_BYTES = 512 * 1024 * 1024;
/** How long an engine may take to start: 30 s, shortened by PLATFORM_ENGINE_START_MS for the platform's own tests. */
const ENGINE_START_MS = () => Number(process.env.PLATFORM_ENGINE_START_MS) || 30_000;

/** The one log of a local server (its calls, for `platform logs` and the dev stream). */
const CALLS = 'local';

export class NodeLocalServer implements LocalServer {
  readonly url: string;
  /** Its recent calls, with what their handlers wrote. */
  readonly calls = new CallLogs();
  readonly adminSecret: string;
  readonly #options: LocalServerOptions;
  readonly #server: ServerType;
  readonly #sessionId = randomBytes(12).toString('base64url');
  readonly #cursorSecret = randomBytes(32).toString('hex');
  #serving: Serving | undefined;
  /** Set while the engine is being swapped: requests wait for it. */
  #swap: Promise<unknown> = Promise.resolve();

  private constructor(options: LocalServerOptions, server: ServerType, url: string) {
    this.#options = options;
    this.#server = server;
    this.url = url;
    this.adminSecret = randomBytes(24).toString('base64url');
  }

  /** Listens on the host and port (0 picks one); serves nothing until the first generation is promoted. */
  static async listen(options: LocalServerOptions): Promise<NodeLocalServer> {
    let local: NodeLocalServer | undefined;
    const server = await new Promise<ServerType>((resolve, reject) => {
      const made = serve({ fetch: (request: Request) => local!.fetch(request), port: options.port, hostname: options.host }, () => resolve(made));
      made.once('error', reject);
      // An oversize body is refused before it is read: the refusal must reach the client all the same.
      lingerOnClose(made as Server);
    });
    const address = server.address() as AddressInfo;
    const host = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host.includes(':') ? `[${options.host}]` : options.host;
    local = new NodeLocalServer(options, server, `http://${host}:${address.port}/`);
    // The trusted entry and the pool's host are bundled while the app compiles, not after.
    void local.#engineParts().catch(() => undefined);
    return local;
  }

  get generation(): Generation | undefined {
    return this.#serving?.generation;
  }

  #engine(generation: Generation, parts: EngineParts): AppEngine {
    const { root, mode, env } = this.#options;
    const server = generation.files.get(SERVER_BUNDLE) ?? new Uint8Array();
    // Every file and folder the engine uses under .platform/ is made or checked here, link by link (a
    // cloned project may ship links there); the engine then writes only inside its own checked folder.
    const writer = new ConfinedWriter(root);
    const appPath = writer.writeFile(`${enginePath(mode)}/modules/${sha256Hex(server)}.mjs`, server);
    // workerd writes the app's SQLite files there by itself, following any link: none may be inside.
    const storageDir = writer.folderWithoutLinks(statePath(mode));
    // The pool's processes write their configs and pid files there (each through a ConfinedWriter of its own).
    const dir = writer.folder(`${enginePath(mode)}/pool`);
    return new AppEngine({
      dir,
      storageDir,
      entryPath: parts.entryPath,
      appPath,
      start: { manifest: generation.manifest, env: env(), cursorSecret: this.#cursorSecret },
      deadlineMs: limitsOf(generation.manifest).handlerDeadlineMs,
      graceMs: 1000,
      // PLATFORM_ENGINE_START_MS shortens the 30 s start limit for the platform's own tests.
      startTimeoutMs: ENGINE_START_MS(),
      memoryLimitBytes: MEMORY_LIMIT_BYTES,
      heapMb: HEAP_MB,
      // The mode names the environment in the pool: its data is the same whatever generation runs.
      pool: { pool: parts.pool, key: mode },
    });
  }

  #parts: Promise<EngineParts> | undefined;

  /** The parts once made, to launch an engine in the same turn. */
  #partsBuilt: EngineParts | undefined;

  /**
   * The trusted entry and the pool's host worker, bundled, and the pool over `.platform/state/<mode>`
   * (one process: one environment runs in it). The data of an engine that ran as a process of its own
   * (a state from before the pool) is moved into the pool first, once: a consistent copy (SQLite's
   * backup), then the old folder goes to `.platform/recovery/`.
   */
  #engineParts(): Promise<EngineParts> {
    this.#parts ??= (async () => {
      const { root, mode } = this.#options;
      const entryDir = join(root, enginePath(mode), 'entry');
      const [entryPath, hostPath] = await Promise.all([bundleWorkerEntry('workerd-app', entryDir, root), bundleWorkerEntry('workerd-pool', entryDir, root)]);
      const writer = new ConfinedWriter(root);
      const storageDir = writer.folderWithoutLinks(statePath(mode));
      const dir = writer.folder(`${enginePath(mode)}/pool`);
      const pool = new WorkerdPool({ dir, storageDir, entryPath, hostPath, processes: 1, heapMb: HEAP_MB, startTimeoutMs: ENGINE_START_MS(), memoryLimitBytes: MEMORY_LIMIT_BYTES });
      const old = join(storageDir, PROCESS_STORE);
      const database = existsSync(old) ? readdirSync(old).find((name) => name.endsWith('.sqlite') && name !== 'metadata.sqlite') : undefined;
      if (database !== undefined) {
        await pool.adopt(mode, join(old, database));
        writer.move(`${statePath(mode)}/${PROCESS_STORE}`, `${RECOVERY_DIR}/${mode}-before-pool-${new Date().toISOString().replace(/[:.]/g, '-')}`);
      }
      return (this.#partsBuilt = { entryPath, pool });
    })();
    this.#parts.catch(() => {
      this.#parts = undefined;
    });
    return this.#parts;
  }

  /** Starts an engine on a generation; the engine, or why it could not start. */
  async #start(generation: Generation): Promise<AppEngine | StartFailure> {
    const engine = this.#engine(generation, await this.#engineParts());
    const failure = await engine.ready();
    if (!failure) return engine;
    await engine.kill();
    return failure;
  }

  /**
   * An engine made ahead of a promotion, with the server side it runs. While nothing serves it is
   * started whole; while an engine serves, only launched (its process up, the app's modules loaded):
   * the app starts in it, on the data, once the serving engine has closed.
   */
  #prestarted: { side: ServerSide; engine: Promise<AppEngine | StartFailure> } | undefined;

  prestart(generation: Generation): void {
    const side = sideOf(generation, this.#options.env());
    if (sameSide(this.#prestarted?.side, side) || sameSide(this.#serving?.side, side)) return;
    void this.#dropPrestarted();
    if (!this.#serving) {
      const engine = this.#swap.then(() => this.#start(generation));
      this.#prestarted = { side, engine };
      this.#swap = engine.catch(() => undefined);
      return;
    }
    // Launched in this turn when the parts are ready: the app's modules load while the types are checked.
    const launch = async (parts: EngineParts) => {
      const made = this.#engine(generation, parts);
      const failure = await made.launch();
      if (!failure) return made;
      await made.kill();
      return failure;
    };
    const engine = this.#partsBuilt !== undefined ? launch(this.#partsBuilt) : this.#engineParts().then(launch);
    // A refused write rejects it: the promotion that takes it reports that; until then it is not unhandled.
    engine.catch(() => undefined);
    this.#prestarted = { side, engine };
  }

  abandonPrestart(): Promise<void> {
    return this.#dropPrestarted();
  }

  /** Ends the engine made ahead, if any. */
  async #dropPrestarted(): Promise<void> {
    const prestarted = this.#prestarted;
    this.#prestarted = undefined;
    // One that could not be made (a refused write) has nothing to end; the next start meets the same refusal.
    const engine = await prestarted?.engine.catch(() => undefined);
    if (engine instanceof AppEngine) await engine.kill();
    await this.#endIdle();
  }

  /** With nothing serving and nothing made ahead, the pool's process ends now, not after its idle time: no engine runs while nothing serves. */
  async #endIdle(): Promise<void> {
    if (!this.#serving && !this.#prestarted) await this.#partsBuilt?.pool.endIdle();
  }

  /** The engine made ahead when it runs `side`, started now (the app on its data); otherwise it is ended. */
  async #takePrestarted(side: ServerSide): Promise<AppEngine | StartFailure | undefined> {
    const prestarted = this.#prestarted;
    if (!prestarted || !sameSide(prestarted.side, side)) {
      await this.#dropPrestarted();
      return undefined;
    }
    this.#prestarted = undefined;
    const engine = await prestarted.engine;
    if (!(engine instanceof AppEngine)) return engine;
    const failure = await engine.ready();
    if (!failure) return engine;
    await engine.kill();
    return failure;
  }

  promote(generation: Generation): Promise<PromoteOutcome> {
    const next = this.#swap.then(() => this.#promote(generation));
    this.#swap = next.catch(() => undefined);
    return next;
  }

  async #promote(generation: Generation): Promise<PromoteOutcome> {
    const side = sideOf(generation, this.#options.env());
    const current = this.#serving;
    if (current && sameSide(current.side, side)) {
      this.#serving = { ...current, generation };
      return { ok: true, restarted: false };
    }
    // A server side that could not even be launched is refused while the previous engine still serves.
    const ahead = this.#prestarted && sameSide(this.#prestarted.side, side) ? await this.#prestarted.engine : undefined;
    if (current && ahead !== undefined && !(ahead instanceof AppEngine)) {
      this.#prestarted = undefined;
      return { ok: false, code: ahead.code, message: ahead.message, previous: 'kept' };
    }
    // One app at a time on the state's SQLite files: the old engine ends before the next one starts the app.
    await current?.engine.close();
    const started = (await this.#takePrestarted(side)) ?? (await this.#start(generation));
    if (started instanceof AppEngine) {
      this.#serving = { generation, side, engine: started };
      return { ok: true, restarted: true };
    }
    if (!current) {
      this.#serving = undefined;
      await this.#endIdle();
      return { ok: false, code: started.code, message: started.message, previous: 'stopped' };
    }
    const back = await this.#start(current.generation);
    if (back instanceof AppEngine) {
      this.#serving = { ...current, engine: back };
      return { ok: false, code: started.code, message: started.message, previous: 'restarted' };
    }
    this.#serving = undefined;
    await this.#endIdle();
    return { ok: false, code: started.code, message: `${started.message} The last good generation did not start again either: ${back.message}`, previous: 'stopped' };
  }

  /** Who visitors are now: `platform auth as` may change it while the server runs. */
  #persona(): PersonaName {
    let text: string | undefined;
    try {
      text = readFileSync(join(this.#options.root, PERSONA_FILE), 'utf8');
    } catch {
      text = undefined;
    }
    return personaFromText(text);
  }

  #auth(): Auth {
    return personaAuth(this.#serving!.generation.manifest.name, this.#persona(), this.#sessionId);
  }

  async fetch(request: Request): Promise<Response> {
    await this.#swap;
    const serving = this.#serving;
    if (!serving) return errorResponse(failedCall(503, 'app_unavailable', 'The app is not running: see the dev server\'s output.'));
    const url = new URL(request.url);
    if (url.pathname === ADMIN_PATH) return this.#admin(request, serving);
    if (url.pathname.startsWith('/__platform/')) return localPlatformResponse(this.#persona(), this.#auth(), request);
    if (isRuntimePath(url.pathname)) {
      const started = performance.now();
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : new Uint8Array(await request.arrayBuffer());
      const headers = [...request.headers].filter(([name]) => name !== 'cookie');
      const auth = this.#auth();
      const response = await serving.engine.fetch(auth, { method: request.method, url: request.url, headers, ...(body ? { body } : {}) });
      // The call's report (its console lines, its error) is kept for `platform logs`, never passed to the page.
      const call = takeCallRecord(request, response, started, auth.kind === 'user' ? 'user' : 'guest');
      if (call) {
        this.calls.record(CALLS, call);
        this.#options.onCall?.(call);
      }
      return response;
    }
    return this.#asset(request, serving.generation, url.pathname);
  }

  /** `platform db`, `export` and `import`: only with this server's admin secret (from its discovery record). */
  async #admin(request: Request, serving: Serving): Promise<Response> {
    const given = Buffer.from(request.headers.get(ADMIN_SECRET_HEADER) ?? '');
    const secret = Buffer.from(this.adminSecret);
    if (request.method !== 'POST' || given.length !== secret.length || !timingSafeEqual(given, secret)) {
      return Response.json({ error: 'This route needs the local server\'s admin secret.' }, { status: 403 });
    }
    const body = new Uint8Array(await request.arrayBuffer());
    // What it serves and its recent calls are this server's own; the data is the engine's.
    let asked: { op?: unknown; after?: unknown } | undefined;
    try {
      asked = JSON.parse(new TextDecoder().decode(body)) as { op?: unknown; after?: unknown };
    } catch {
      asked = undefined;
    }
    if (asked?.op === 'manifest') return Response.json({ protocol: ADMIN_PROTOCOL, ok: true, result: { op: 'manifest', manifest: serving.generation.manifest } });
    if (asked?.op === 'logs') {
      const after = typeof asked.after === 'string' && CALL_CURSOR.test(asked.after) ? asked.after : undefined;
      return Response.json({ protocol: ADMIN_PROTOCOL, ok: true, result: { op: 'logs', ...this.calls.read(CALLS, after) } });
    }
    const admin = { appUserId: 'admin', kind: 'admin', roles: [], permissions: [], workspaceIds: [], sessionId: 'admin' } as unknown as Auth;
    return serving.engine.fetch(admin, { method: 'POST', url: request.url, headers: [['content-type', 'application/json']], body });
  }

  #asset(request: Request, generation: Generation, pathname: string): Response {
    if (request.method !== 'GET' && request.method !== 'HEAD') return new Response('Method not allowed', { status: 405, headers: { allow: 'GET, HEAD' } });
    const path = assetPath(generation.manifest, pathname, (candidate) => generation.files.has(candidate));
    const bytes = path === undefined ? undefined : generation.files.get(path);
    if (path === undefined || !bytes) return new Response(`Nothing is served at ${pathname}.`, { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    let body: Uint8Array = bytes;
    // The page says who its visitor is: a small corner label on the document.
    if (path === 'client/index.html') body = new TextEncoder().encode(personaBanner(new TextDecoder().decode(bytes), this.#options.mode, this.#persona()));
    return new Response(request.method === 'HEAD' ? null : (body as BodyInit), { status: 200, headers: { 'content-type': contentType(path), 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } });
  }

  async close(): Promise<void> {
    const serving = this.#serving;
    this.#serving = undefined;
    (this.#server as { closeAllConnections?: () => void }).closeAllConnections?.();
    await new Promise<void>((done) => this.#server.close(() => done()));
    await serving?.engine.kill();
    await this.#dropPrestarted();
    await (await this.#parts?.catch(() => undefined))?.pool.stop();
  }
}
