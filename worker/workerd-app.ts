/**
 * The trusted entry of a hosted app's workerd worker: one app environment, one Durable Object
 * (`AppStore`) holding its tables and stored objects in SQLite, and the core runtime serving the app's
 * server bundle (module `app.js`) over it. Every request must carry an identity the control plane
 * signed with this engine's key; the key, the cursor secret and the app's environment values arrive as
 * bindings, which app code never sees (it gets no `env`, and bindings are not globals).
 */
import { AppRuntime, failedCall, errorResponse, describeProblems, isSchemaChangeRefused, ConsoleCapture, type Auth } from '../src/core/runtime';
import { answerBatch, BATCH_PATH, decodeBatch, describeError, IDENTITY_HEADER, IdentityVerifier, LOADED_PATH, READY_PATH, SequenceWindow } from '../src/core/host';
import { DurableObjectSqlDriver, type DurableObjectSqlStorage } from '../src/adapters/workerd/durable-object-sql-driver';
import type { Manifest } from '../src/core/manifest';
import { INSPECT_PREFIX, type HostedInspection } from './protocol/inspection';
import { TENANT_HEADER, VERSION_HEADER } from './protocol/pool';
import { inspect, operationsOf } from './runtime-inspect';
import { ADMIN_PATH, adminRequestProblem, answerAdmin, type AdminRequest } from '../src/core/local';
import { EXPORT_PAGE_ROWS, exportPage } from '../src/core/state';
import { LIVE_CONNECTION_HEADER, wireRoute } from '../src/modules/wire';

/** What the control plane passes in the `START` binding (from the engine process's environment, never a file). */
export interface AppStart {
  manifest: Manifest;
  env: Record<string, string>;
  /** Hex keys: the cursor secret (stable across restarts) and this engine's identity key (fresh per start). */
  cursorSecret: string;
  identityKey: string;
  handlerDeadlineMs?: number;
  /** The operator's quota on the environment's stored bytes (the runtime's default otherwise). */
  maxStoredBytes?: number;
}

interface Env {
  START: string;
  STORE: { idFromName(name: string): unknown; get(id: unknown): { fetch(request: Request): Promise<Response> } };
}

const encoder = new TextEncoder();
const hex = (text: string) => Uint8Array.from(text.match(/../g) ?? [], (byte) => parseInt(byte, 16));

// The isolate's console writes to the running call (its owner reads it), never to the host's output.
// Installed before the app's module loads, so the app finds it already fixed in place.
const capture = new ConsoleCapture().install();

/**
 * V8's full collection, which the host exposes to this engine (`--expose-gc`): taken here, before the
 * app's module loads, and removed from the global scope the app shares, which never sees it (the
 * security suite's hostile app looks). A page of a state export or a batch of an import makes a few
 * megabytes of short-lived rows; collected after each, the engine's memory stays at what it holds,
 * not at what V8 lets pile up between collections (which grew with the number of pages: docs/cli.md).
 */
const collectGarbage = (globalThis as { gc?: () => void }).gc;
// workerd makes the property writable but not configurable: emptied, not deleted.
(globalThis as { gc?: unknown }).gc = undefined;

// The app's module loads after this one has been evaluated: a failure to load is reported, not fatal.
const APP_MODULE = './app.js';
let definition: unknown;
let loadFailure: string | undefined;
try {
  definition = ((await import(APP_MODULE)) as { default?: unknown }).default;
} catch (error) {
  loadFailure = `The server module could not be loaded: ${describeError(error)}`;
}

/** A query or mutation by the URL it was asked at, called as `auth` with `body`; undefined for any other route. */
function callWire(runtime: AppRuntime, auth: Auth, at: string, body: Uint8Array, liveConnection: string | null): Promise<Response> | undefined {
  const wire = wireRoute(new URL(at).pathname);
  return wire ? runtime.wire(Object.freeze({ ...auth }), wire.kind, decodeURIComponent(wire.encodedName), body, liveConnection) : undefined;
}

/** The answer to a request without a valid identity signed by the control plane. */
const identityRefused = () => errorResponse(failedCall(403, 'identity_refused', 'The request does not carry an identity signed by the control plane.'));

export class AppStore {
  readonly #identity: IdentityVerifier;
  /** Each signed request is served once: a header captured on loopback cannot be sent again. */
  readonly #sequences = new SequenceWindow();
  readonly #runtime: AppRuntime | undefined;
  readonly #failure: { code: 'module_invalid' | 'provision_failed'; message: string } | undefined;
  /** For a local server's admin requests (`platform db`, `export`, `import`): signed as kind `admin`, which hosting never signs. */
  readonly #admin: { driver: DurableObjectSqlDriver; manifest: Manifest };

  constructor(state: { storage: DurableObjectSqlStorage }, env: Env) {
    const start = JSON.parse(env.START) as AppStart;
    this.#admin = { driver: new DurableObjectSqlDriver(state.storage), manifest: start.manifest };
    this.#identity = new IdentityVerifier(hex(start.identityKey));
    if (loadFailure) {
      this.#failure = { code: 'module_invalid', message: loadFailure };
      return;
    }
    try {
      this.#runtime = new AppRuntime({
        manifest: start.manifest,
        definition,
        driver: new DurableObjectSqlDriver(state.storage),
        env: start.env,
        secret: hex(start.cursorSecret),
        console: capture,
        limits: { ...(start.handlerDeadlineMs ? { handlerDeadlineMs: start.handlerDeadlineMs } : {}), ...(start.maxStoredBytes ? { maxStoredBytes: start.maxStoredBytes } : {}) },
      });
    } catch (error) {
      // An incompatible schema change is known by its code (schema_change_refused), never by its wording.
      const text = describeError(error);
      this.#failure = isSchemaChangeRefused(error)
        ? { code: 'provision_failed', message: `The environment's data cannot follow this database declaration (an incompatible schema change): ${describeProblems(error.problems)}. Its data stays as it was.` }
        : { code: 'module_invalid', message: `The server module is not a server definition: ${text}` };
    }
  }

  async fetch(request: Request): Promise<Response> {
    const identity = await this.#identity.verify(request.headers.get(IDENTITY_HEADER));
    if (!identity || identity.method !== request.method) return identityRefused();
    // The body the control plane signed, and no other (bounded by the control plane's requestBytes before it signed).
    const body = request.method === 'GET' || request.method === 'HEAD' ? null : new Uint8Array(await request.arrayBuffer());
    if ((await this.#identity.bodyHash(body)) !== identity.bodyHash || !this.#sequences.accept(identity.sequence)) return identityRefused();
    const url = new URL(request.url);
    if (url.pathname === READY_PATH) return Response.json(this.#failure ?? { ready: true });
    if (url.pathname === ADMIN_PATH && (identity.auth as { kind: string }).kind === 'admin' && body) {
      let admin: unknown;
      try {
        admin = JSON.parse(new TextDecoder().decode(body));
      } catch {
        admin = undefined;
      }
      const problem = adminRequestProblem(admin);
      if (problem) return Response.json({ error: problem }, { status: 400 });
      // Between calls, as an owner's reads are: never inside a call's open transaction.
      const answer = () => answerAdmin(this.#admin.driver, this.#admin.manifest, admin as AdminRequest);
      const run = () => (this.#runtime ? this.#runtime.exclusive(answer) : answer());
      if ((admin as AdminRequest).op === 'import-commit') return streamedAnswer(run);
      const answered = Response.json(await run());
      collectGarbage?.();
      return answered;
    }
    if (!this.#runtime) return errorResponse(failedCall(503, 'app_unavailable', this.#failure?.message ?? 'The app is not running.'));
    const path = url.pathname;
    if (path.startsWith(INSPECT_PREFIX)) return this.#inspect(this.#runtime, path.slice(INSPECT_PREFIX.length), url.searchParams);
    // A query or mutation (by the URL the control plane signed, as below): called with the body read
    // above. The app never sees its request, so none is copied for it.
    const runtime = this.#runtime;
    const called = body && request.method === 'POST' ? callWire(runtime, identity.auth, identity.url, body, request.headers.get(LIVE_CONNECTION_HEADER)) : undefined;
    if (called) return called;
    // Calls the control plane carried together (src/core/host/batch.ts): each answered as its wire route
    // answers it alone, under the auth the control plane signed for it in the batch's body.
    if (path === BATCH_PATH && body && (identity.auth as { kind: string }).kind === 'batch' && new URL(identity.url).pathname === BATCH_PATH) {
      const calls = decodeBatch(body);
      if (!calls) return errorResponse(failedCall(400, 'operation_failed', 'The batch is not one.'));
      return answerBatch(calls, async (call) => callWire(runtime, call.auth, call.url, encoder.encode(call.body), null) ?? errorResponse(failedCall(404, 'operation_failed', 'The batch carried a call that is not a query or mutation.')));
    }
    const headers = new Headers(request.headers);
    // The identity, and a pool's headers naming the environment and its lease: never the app's to see.
    headers.delete(IDENTITY_HEADER);
    headers.delete(TENANT_HEADER);
    headers.delete(VERSION_HEADER);
    const forwarded = new Request(identity.url, { method: request.method, headers, ...(body ? { body } : {}) });
    return this.#runtime.fetch(Object.freeze({ ...identity.auth }), forwarded, typeof identity.visitor === 'string' ? identity.visitor : undefined);
  }

  /**
   * The owner's reads (control plane only: it never forwards a visitor's request under `/__platform/`),
   * between calls so that they see committed data: the tables, a page of rows, a page of the state export.
   */
  async #inspect(runtime: AppRuntime, view: string, params: URLSearchParams): Promise<Response> {
    const answer = await runtime.exclusive(async (driver): Promise<HostedInspection> => {
      const target = { driver, manifest: runtime.manifest, operations: operationsOf(definition), policies: runtime.policies };
      if (view === 'state') {
        const overview = await inspect(target, { kind: 'overview' });
        if (overview.kind !== 'overview') return { kind: 'refused', message: overview.kind === 'refused' ? overview.message : 'The state could not be read.' };
        const table = params.get('table');
        if (!table) return overview;
        const page = await inspect(target, { kind: 'rows', table, offset: Number(params.get('offset') ?? 0) || 0, limit: Number(params.get('limit') ?? 50) || 50 });
        return page.kind === 'rows' ? { ...overview, rows: page } : { kind: 'refused', message: page.kind === 'refused' ? page.message : 'The rows could not be read.' };
      }
      if (view === 'export') {
        // One bounded page per request, so an export of any size never reaches the handler deadline.
        const maxRows = Math.min(Number(params.get('maxRows')) || EXPORT_PAGE_ROWS, EXPORT_PAGE_ROWS);
        const page = exportPage(driver, runtime.manifest, params.get('cursor') ?? undefined, { maxRows });
        return page.ok ? { kind: 'export-page', page: page.page } : { kind: 'refused', message: page.diagnostic.message };
      }
      return { kind: 'refused', message: `There is no view "${view}".` };
    });
    const answered = Response.json(answer, { status: answer.kind === 'refused' ? 422 : 200 });
    if (view === 'export') collectGarbage?.();
    return answered;
  }
}

/**
 * An answer whose one piece of work grows with the data: a streamed import's commit, one SQLite
 * transaction moving every staged row into place (every other step of an export or import is a bounded
 * page). Its head goes out at once and its body when the work ends, so the host's deadline watchdog,
 * which guards against a handler that never answers, does not end the engine in the middle of a
 * transaction that is progressing; the transaction stays all or nothing, and calls wait behind it.
 */
function streamedAnswer(work: () => Promise<unknown>): Response {
  const body = new TransformStream<Uint8Array, Uint8Array>();
  const writer = body.writable.getWriter();
  void (async () => {
    // After the head has gone out.
    await new Promise((done) => setTimeout(done, 0));
    try {
      await writer.write(new TextEncoder().encode(JSON.stringify(await work())));
    } finally {
      await writer.close();
    }
  })();
  return new Response(body.readable, { headers: { 'content-type': 'application/json' } });
}

/** Checks identities asked whether the module loaded, outside the app's Durable Object (which is not made for it). */
let launchIdentity: IdentityVerifier | undefined;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (new URL(request.url).pathname !== LOADED_PATH) return env.STORE.get(env.STORE.idFromName('app')).fetch(request);
    launchIdentity ??= new IdentityVerifier(hex((JSON.parse(env.START) as AppStart).identityKey));
    const identity = await launchIdentity.verify(request.headers.get(IDENTITY_HEADER));
    if (!identity || identity.method !== request.method) return identityRefused();
    return Response.json(loadFailure ? { code: 'module_invalid', message: loadFailure } : { loaded: true });
  },
};
