/**
 * The application runtime: runs an app's queries, mutations and endpoints against its database and
 * object store, exactly as runtime.md specifies. One transaction per call; errors become structured
 * failures with an errorId; budgets reset per call. Hosted by the playground's runtime worker, by
 * `platform test` and by the control plane.
 */
import type { Manifest } from '../manifest/index.ts';
import { encodeJson, decodeJson, runtimeErrorBody, LIVE_CONNECTION_HEADER, LIVE_PATH, READ_HEADER, WROTE_HEADER, tableSetHeader, wireRoute, type CallAnswer } from '../../modules/wire.ts';
import { systemClock, type RuntimeClock } from './clock.ts';
import { CursorSigner } from './cursor.ts';
import { CALL_REPORT_HEADER, encodeCallReport, thrownFrames, type ConsoleCapture } from './console-capture.ts';
import { fault, isRuntimeFault, type FaultCode } from './faults.ts';
import { validateInput } from './input.ts';
import { limitsOf, Meter, type Limits } from './limits.ts';
import { LiveUpdates } from './live.ts';
import { deadlineMessage, failedCall, type CallOutcome, type RuntimeErrorInfo } from './outcome.ts';
import type { Auth } from './personas.ts';
import { Router } from './router.ts';
import { ScopedDriver } from './scoped-driver.ts';
import type { SqlDriver } from './sql-driver.ts';
import { databaseIdentity, ensureSchema, type SchemaOutcome } from './database-schema.ts';
import { Database, type TablePolicyContext } from './tables/database.ts';
import { createStorage, SqlObjectStore } from './storage/index.ts';

const DESCRIPTOR = Symbol.for('platform.descriptor');
const encoder = new TextEncoder();

type Kind = 'query' | 'mutation';
type Guard = { kind: 'authenticated' } | { kind: 'memberOf'; field: string };
interface OperationDescriptor {
  kind: Kind;
  input: Record<string, never>;
  auth: Guard[];
  handler: (ctx: unknown, input: unknown) => unknown;
}
interface EndpointDescriptor {
  kind: 'endpoint';
  auth: Guard[];
  handler: (request: Request, ctx: unknown) => unknown;
}
interface StreamDescriptor {
  kind: 'stream';
  body?: ReadableStream<Uint8Array>;
  upstream?: Response;
  headers?: HeadersInit;
}

function isDescriptor<T>(value: unknown, kind: string): value is T {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DESCRIPTOR] === kind;
}

export interface RuntimeOptions {
  manifest: Manifest;
  /** The server entrypoint's default export (the bundle's `default`). */
  definition: unknown;
  /** The app's database. The runtime creates the schema in an empty one. */
  driver: SqlDriver;
  clock?: RuntimeClock;
  /** The secret that signs cursors; random when not given. */
  secret?: Uint8Array;
  env?: Record<string, string>;
  limits?: Partial<Limits>;
  /**
   * Where handlers' `console` lines go: with a capture (installed on the engine's console), each call
   * carries its own lines, in `CallOutcome.logs` and the `x-platform-logs` header of its answer.
   */
  console?: ConsoleCapture;
}

export type { CallOutcome, RuntimeErrorInfo } from './outcome.ts';

/** The schema identity of a manifest's database declaration (what the database's meta table records). */
export function schemaIdentity(manifest: Manifest): string {
  return databaseIdentity(manifest.database ?? null);
}

const WIRE_BODY_REFUSED = 'The request body is not valid JSON of the form {"input": …}.';

/** The input a wire call's request body carries (`{"input": …}` in wire JSON), or undefined when it is not of that form. */
function wireInput(body: string): { input: unknown } | undefined {
  try {
    return { input: (decodeJson(body) as { input?: unknown } | null)?.input };
  } catch {
    return undefined;
  }
}

/**
 * A call's outcome as its answer: the status, the result (`result`: as the transport carries it, the
 * outcome's own by default) or the error (code, message and errorId; never the owner's report), what a
 * query read (answered or failed) and what a mutation that succeeded wrote. The wire route answers it
 * as its body and headers; a preview's port to the runtime worker as it is.
 */
export function callAnswer<R = unknown>(kind: Kind, outcome: CallOutcome, result: R = outcome.result as R): CallAnswer & { result?: R } {
  const { status, error } = outcome;
  return {
    status,
    ...(error ? { error: { code: error.code, message: error.message, errorId: error.errorId } } : result !== undefined ? { result } : {}),
    ...(kind === 'query' ? { read: outcome.read ?? { tables: [], storage: false } } : error ? {} : { wrote: outcome.wrote }),
  };
}

export class AppRuntime {
  readonly manifest: Manifest;
  readonly limits: Limits;
  /** What opening the database did to its schema: created it, found it as declared, or changed it (rows kept). */
  schemaChange: SchemaOutcome = 'unchanged';
  readonly #driver: SqlDriver;
  readonly #clock: RuntimeClock;
  readonly #signer: CursorSigner;
  readonly #queries = new Map<string, OperationDescriptor>();
  readonly #mutations = new Map<string, OperationDescriptor>();
  readonly #endpoints = new Router<EndpointDescriptor>();
  readonly #policies = new Map<string, 'ownedTable' | 'workspaceTable'>();
  #env: Record<string, string>;
  /** Calls run one at a time: the database has one connection and each call is one transaction. */
  #queue: Promise<unknown> = Promise.resolve();
  /** Live connections and the liveConnections slots they share with streamed responses (live.ts). */
  #liveUpdates: LiveUpdates | undefined;
  readonly #console: ConsoleCapture | undefined;

  get #live(): LiveUpdates {
    return (this.#liveUpdates ??= new LiveUpdates(this.limits, this.#clock));
  }

  constructor(options: RuntimeOptions) {
    this.manifest = options.manifest;
    this.limits = limitsOf(options.manifest, options.limits);
    this.#driver = options.driver;
    this.#clock = options.clock ?? systemClock;
    this.#signer = new CursorSigner(options.secret ?? this.#clock.randomBytes(32));
    this.#env = { ...options.env };
    this.#console = options.console;
    this.#readDefinition(options.definition);
    this.#ensureSchema();
  }

  #readDefinition(definition: unknown): void {
    if (typeof definition !== 'object' || definition === null) throw new Error('The server entrypoint does not export a server definition.');
    const d = definition as Record<string, Record<string, unknown> | undefined>;
    for (const [name, value] of Object.entries(d.queries ?? {})) if (isDescriptor<OperationDescriptor>(value, 'query')) this.#queries.set(name, value);
    for (const [name, value] of Object.entries(d.mutations ?? {})) if (isDescriptor<OperationDescriptor>(value, 'mutation')) this.#mutations.set(name, value);
    for (const [key, value] of Object.entries(d.endpoints ?? {})) if (isDescriptor<EndpointDescriptor>(value, 'endpoint')) this.#endpoints.add(key, value);
    for (const [table, value] of Object.entries(d.authPolicies ?? {})) {
      if (isDescriptor(value, 'ownedTable')) this.#policies.set(table, 'ownedTable');
      else if (isDescriptor(value, 'workspaceTable')) this.#policies.set(table, 'workspaceTable');
    }
  }

  /**
   * Creates the schema in an empty database, or brings a database made for another declaration to
   * this one, keeping its rows (database-schema.ts); an incompatible change throws a
   * SchemaChangeRefused (code `schema_change_refused`) naming each table, field and reason.
   */
  #ensureSchema(): void {
    this.schemaChange = ensureSchema(this.#driver, this.manifest.database ?? null, this.#policies);
  }

  /** The table policies of the server definition (table → policy), as schema changes and state imports judge them. */
  get policies(): ReadonlyMap<string, 'ownedTable' | 'workspaceTable'> {
    return this.#policies;
  }

  /** `ctx.env` for later calls (the test module's setEnv). */
  setEnv(values: Record<string, string>): void {
    this.#env = { ...this.#env, ...values };
  }

  #failure(code: FaultCode | string, status: number, message: string, headers?: Record<string, string>): CallOutcome {
    return failedCall(status, code, message, this.#clock, headers);
  }

  /**
   * Maps what a handler threw to a failure: a fault keeps its code; anything else is the surface's
   * failure. The thrown error's stack frames stay in the outcome (`stack`), for its owner's report,
   * never in the answer.
   */
  #fromThrown(thrown: unknown, surface: 'operation' | 'endpoint'): CallOutcome {
    const stack = thrownFrames(thrown);
    const at = stack ? { stack } : {};
    if (isRuntimeFault(thrown)) {
      const status = thrown.status ?? (surface === 'endpoint' ? 500 : 400);
      const code = thrown.code === 'operation_failed' && surface === 'endpoint' ? 'endpoint_failed' : thrown.code;
      return { ...this.#failure(code, status, thrown.message, thrown.headers), ...at };
    }
    const message = thrown instanceof Error ? thrown.message : typeof thrown === 'string' ? thrown : 'The handler threw a value that is not an Error.';
    return { ...(surface === 'endpoint' ? this.#failure('endpoint_failed', 500, message) : this.#failure('operation_failed', 400, message)), ...at };
  }

  /** A guard refuses with 400 operation_failed on every surface, never revealing more than the refusal. */
  #checkGuards(guards: readonly Guard[], auth: Auth, input: Record<string, unknown>): string | undefined {
    for (const guard of guards) {
      if (guard.kind === 'authenticated' && auth.kind !== 'user') return 'This operation requires a signed-in user.';
      if (guard.kind === 'memberOf') {
        const workspace = input[guard.field];
        if (typeof workspace !== 'string' || !auth.workspaceIds.includes(workspace)) return `The caller is not a member of the workspace named by "${guard.field}".`;
      }
    }
    return undefined;
  }

  #serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Builds a call's context: auth, env, and the capabilities the manifest declares. */
  #context(auth: Auth, driver: ScopedDriver, meter: Meter, writable: boolean, wrote: CallOutcome['wrote'], extra: Record<string, unknown> = {}, read?: CallOutcome['wrote']) {
    const ctx: Record<string, unknown> = { auth, env: Object.freeze({ ...this.#env }), ...extra };
    const capabilities = this.manifest.capabilities ?? [];
    if (capabilities.includes('database') && this.manifest.database) {
      const policies: Record<string, TablePolicyContext> = {};
      for (const [table, kind] of this.#policies) {
        policies[table] = kind === 'ownedTable' ? { kind, appUserId: auth.appUserId } : { kind, workspaceIds: auth.workspaceIds };
      }
      ctx.db = new Database({
        driver,
        database: this.manifest.database,
        meter,
        signer: this.#signer,
        clock: this.#clock,
        policies,
        writable,
        onWrite: (table) => {
          if (!wrote.tables.includes(table)) wrote.tables.push(table);
        },
        onRead: (table) => {
          if (read && !read.tables.includes(table)) read.tables.push(table);
        },
      });
    }
    if (capabilities.includes('storage')) {
      ctx.storage = createStorage({
        store: new SqlObjectStore(driver),
        meter,
        signer: this.#signer,
        clock: this.#clock,
        writable,
        onWrite: () => {
          wrote.storage = true;
        },
        onRead: () => {
          if (read) read.storage = true;
        },
      });
    }
    return Object.freeze(ctx);
  }

  /** Runs `work` with the call's deadline; past it, 504 handler_deadline_exceeded. */
  async #withDeadline<T>(work: () => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(fault('handler_deadline_exceeded', deadlineMessage(this.limits.handlerDeadlineMs), 504)), this.limits.handlerDeadlineMs);
    });
    try {
      return await Promise.race([work(), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Before a write commits (inside its transaction, so a throw rolls it back whole): refuses it, 507
   * `storage_quota_exceeded`, when it grew the database past `maxStoredBytes`. A write that did not
   * grow it (a delete, an update in place) passes even over the quota, so an owner can make room.
   */
  #withinQuota(before: number): void {
    const after = this.#driver.storedBytes();
    if (after <= before || after <= this.limits.maxStoredBytes) return;
    throw fault('storage_quota_exceeded', `The write was refused: it would grow this app environment's stored data (rows and objects) to ${after} bytes, over its quota of ${this.limits.maxStoredBytes} bytes. Nothing was written; reads and deletes still work.`, 507);
  }

  /**
   * Runs a query or mutation with a decoded input, as `caller`; sent under the live connection
   * `liveConnection` (the caller's own), a query is held there as its wire route holds it.
   */
  call(auth: Auth, kind: Kind, name: string, input: unknown, liveConnection?: string | null): Promise<CallOutcome> {
    return this.#serialize(async () => {
      if (!this.#console) return this.#call(auth, kind, name, input, liveConnection);
      const { value, lines } = await this.#console.collect(() => this.#call(auth, kind, name, input, liveConnection));
      return lines.length ? { ...value, logs: lines } : value;
    });
  }

  /**
   * Runs a query or mutation from its wire route's request body (`{"input": …}` in wire JSON), refused
   * as that route refuses it (over requestBytes, not of that form), under the live connection
   * `liveConnection`: the wire route's call without HTTP (a playground preview's port to its runtime).
   * `callAnswer` makes the answer the route would give.
   */
  callWire(auth: Auth, kind: Kind, name: string, body: string, liveConnection?: string | null): Promise<CallOutcome> {
    const size = body.length * 3 <= this.limits.requestBytes ? 0 : encoder.encode(body).byteLength;
    if (size > this.limits.requestBytes) return Promise.resolve(this.#tooLarge(size));
    const parsed = wireInput(body);
    if (!parsed) return Promise.resolve(this.#failure('operation_failed', 400, WIRE_BODY_REFUSED));
    return this.call(auth, kind, name, parsed.input, liveConnection);
  }

  /** Runs `work` between calls, with the app's database: nothing else reads or writes meanwhile (an owner's inspection). */
  exclusive<T>(work: (driver: SqlDriver) => T | Promise<T>): Promise<T> {
    return this.#serialize(async () => work(this.#driver));
  }

  /**
   * Updates one row as `auth`, as a mutation's handler would with `ctx.db.table(table).update(id,
   * patch)`: the same table API, values checked by the field declarations, the table's policy held
   * (another owner's row is `Record not found`, a move into a workspace the caller is not in is
   * refused), one transaction, and a committed write refreshes every live connection holding a query
   * that read the table. An owner's edit from the data browser; failures are 400 `operation_failed`.
   */
  updateRow(auth: Auth, table: string, id: string, patch: Record<string, unknown>): Promise<CallOutcome> {
    return this.#serialize(async () => {
      const wrote: CallOutcome['wrote'] = { tables: [], storage: false };
      if (!this.manifest.database?.tables[table]) return this.#failure('operation_failed', 400, `There is no table "${table}" in the manifest.`);
      const driver = new ScopedDriver(this.#driver);
      try {
        const row = await this.#driver.transaction(async () => {
          try {
            const before = this.#driver.storedBytes();
            const ctx = this.#context(auth, driver, new Meter(this.limits), true, wrote) as { db: { table(name: string): { update(id: string, patch: Record<string, unknown>): Promise<unknown> } } };
            const updated = await this.#withDeadline(() => ctx.db.table(table).update(id, patch));
            this.#withinQuota(before);
            return updated;
          } finally {
            driver.close();
          }
        });
        const outcome: CallOutcome = { status: 200, result: row, wrote };
        this.#live.notify(wrote);
        return outcome;
      } catch (error) {
        return this.#fromThrown(error, 'operation');
      }
    });
  }

  /** A call, then what live updates make of it (a query held by the caller's live connection, a mutation's refresh of the others). */
  async #call(auth: Auth, kind: Kind, name: string, input: unknown, liveConnection?: string | null): Promise<CallOutcome> {
    const outcome = await this.#run(auth, kind, name, input);
    this.#live.settled(kind, name, auth, outcome, liveConnection);
    return outcome;
  }

  async #run(auth: Auth, kind: Kind, name: string, input: unknown): Promise<CallOutcome> {
    const operation = (kind === 'query' ? this.#queries : this.#mutations).get(name);
    if (!operation) return this.#failure('not_found', 404, `There is no ${kind} named "${name}".`);
    let validated: Record<string, unknown>;
    try {
      validated = validateInput(operation.input, input);
    } catch (error) {
      return this.#fromThrown(error, 'operation');
    }
    const denial = this.#checkGuards(operation.auth, auth, validated);
    if (denial) return this.#failure('operation_failed', 400, denial);

    const meter = new Meter(this.limits);
    const driver = new ScopedDriver(this.#driver);
    const wrote: CallOutcome['wrote'] = { tables: [], storage: false };
    const read: CallOutcome['wrote'] = { tables: [], storage: false };
    const writable = kind === 'mutation';
    try {
      // One transaction; a query cannot write, even through a path the API does not offer.
      const encoded = await this.#driver.transaction(async () => {
        try {
          const before = writable ? this.#driver.storedBytes() : 0;
          const ctx = this.#context(auth, driver, meter, writable, wrote, {}, read);
          const result = await this.#withDeadline(async () => operation.handler(ctx, validated));
          const text = encodeJson({ result });
          const size = encoder.encode(text).byteLength;
          if (size > this.limits.responseBytes) {
            throw fault('response_too_large', `The result is ${size} bytes, over the responseBytes budget of ${this.limits.responseBytes}.`, 400);
          }
          if (writable) this.#withinQuota(before);
          return text;
        } finally {
          driver.close();
        }
      }, { readOnly: !writable });
      return { status: 200, result: (decodeJson(encoded) as { result?: unknown }).result, wrote, read };
    } catch (error) {
      return { ...this.#fromThrown(error, 'operation'), read };
    }
  }

  /**
   * Serves an HTTP request as `auth`: the query and mutation wire routes (`/_platform/v0/…`) and the
   * app's endpoints (`/api/…`). `visitor`, when the host names one, is who a live connection or a
   * streamed response holds its slot for: one visitor holds at most its share (live.ts).
   */
  fetch(auth: Auth, request: Request, visitor?: string): Promise<Response> {
    return this.#answer(() => this.#fetch(auth, request, visitor), () => new URL(request.url).pathname === LIVE_PATH);
  }

  /**
   * The answer `fetch` gives a query or mutation's wire route (`POST /_platform/v0/<kind>/<name>`,
   * `wireRoute`) whose body the host has read already: the same call, refusals and headers, without a
   * Request made for it (workerd's trusted entry serves every wire call this way: copying the request
   * and reading its body again cost a sixth of a millisecond of the isolate's thread a call).
   */
  wire(auth: Auth, kind: Kind, name: string, body: Uint8Array, liveConnection: string | null): Promise<Response> {
    return this.#answer(() => this.#wire(auth, kind, name, body, liveConnection), () => false);
  }

  /** An HTTP answer made one call at a time, with the call's report (its console lines, its error) in a header. */
  #answer(work: () => Promise<Response>, livePath: () => boolean): Promise<Response> {
    return this.#serialize(async () => {
      if (!this.#console) return work();
      // Lines written before the answer's headers are the call's (a stream's later lines are not kept).
      const { value, lines } = await this.#console.collect(work);
      // A live connection refused by a budget of 0 is live updates being off, not a failure to report.
      const off = this.limits.liveConnections === 0 && livePath();
      const error = off ? undefined : errorOf(value);
      const stack = error ? answeredStacks.get(value) : undefined;
      return withReport(value, lines.length || error ? encodeCallReport({ logs: lines, ...(error ? { error } : {}), ...(stack ? { stack } : {}) }, this.#console.reportBytes) : undefined);
    });
  }

  /** The body of a request, refused before any handler when it is over requestBytes. */
  async #body(request: Request): Promise<Uint8Array | CallOutcome> {
    const declared = Number(request.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > this.limits.requestBytes) return this.#tooLarge(declared);
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > this.limits.requestBytes) return this.#tooLarge(bytes.byteLength);
    return bytes;
  }

  #tooLarge(size: number): CallOutcome {
    return this.#failure('request_too_large', 413, `The request body is ${size} bytes, over the requestBytes budget of ${this.limits.requestBytes}.`);
  }

  async #fetch(auth: Auth, request: Request, visitor: string | undefined): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === LIVE_PATH) {
      if (request.method !== 'GET') return errorResponse(this.#failure('not_found', 405, `Use GET for ${url.pathname}.`));
      const opened = this.#live.open(auth, visitor);
      return opened instanceof Response ? opened : errorResponse(opened);
    }
    const wire = wireRoute(url.pathname);
    if (wire) {
      if (request.method !== 'POST') return errorResponse(this.#failure('not_found', 405, `Use POST for ${url.pathname}.`));
      const body = await this.#body(request);
      if (!(body instanceof Uint8Array)) return errorResponse(body);
      return this.#wire(auth, wire.kind, decodeURIComponent(wire.encodedName), body, request.headers.get(LIVE_CONNECTION_HEADER));
    }
    return this.#endpoint(auth, request, url, visitor);
  }

  /** A wire route's call from its request body, and its answer. */
  async #wire(auth: Auth, kind: Kind, name: string, body: Uint8Array, liveConnection: string | null): Promise<Response> {
    if (body.byteLength > this.limits.requestBytes) return errorResponse(this.#tooLarge(body.byteLength));
    const parsed = wireInput(new TextDecoder().decode(body));
    if (!parsed) return errorResponse(this.#failure('operation_failed', 400, WIRE_BODY_REFUSED));
    const outcome = await this.#call(auth, kind, name, parsed.input, liveConnection);
    // What a query read and a mutation wrote, in headers: the client re-runs its queries by them.
    const answer = callAnswer(kind, outcome);
    const tables: Record<string, string> = {};
    if (answer.read) tables[READ_HEADER] = tableSetHeader(answer.read);
    if (answer.wrote) tables[WROTE_HEADER] = tableSetHeader(answer.wrote);
    if (outcome.error) return errorResponse({ ...outcome, headers: { ...outcome.headers, ...tables } });
    return new Response(encodeJson({ result: answer.result }), { status: 200, headers: { 'content-type': 'application/json', ...tables } });
  }

  async #endpoint(auth: Auth, request: Request, url: URL, visitor: string | undefined): Promise<Response> {
    const { match, methodAllowed } = this.#endpoints.match(request.method, url.pathname);
    if (!match) {
      return methodAllowed
        ? errorResponse(this.#failure('not_found', 404, `No endpoint serves ${request.method} ${url.pathname}.`))
        : errorResponse(this.#failure('not_found', 405, `${url.pathname} does not accept ${request.method}.`));
    }
    const body = await this.#body(request);
    if (!(body instanceof Uint8Array)) return errorResponse(body);
    const denial = this.#checkGuards(match.value.auth, auth, {});
    if (denial) return errorResponse(this.#failure('operation_failed', 400, denial));

    const handlerRequest = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.method === 'GET' || request.method === 'HEAD' ? {} : { body: body as BodyInit }),
    });
    const meter = new Meter(this.limits);
    const driver = new ScopedDriver(this.#driver);
    const wrote: CallOutcome['wrote'] = { tables: [], storage: false };
    try {
      const answer = await this.#driver.transaction(async (): Promise<StreamDescriptor | Response> => {
        try {
          const before = this.#driver.storedBytes();
          const ctx = this.#context(auth, driver, meter, true, wrote, { params: Object.freeze({ ...match.params }) });
          const returned = await this.#withDeadline(async () => match.value.handler(handlerRequest, ctx));
          if (isDescriptor<StreamDescriptor>(returned, 'stream')) {
            if (wrote.tables.length || wrote.storage || meter.rowsWritten > 0) {
              throw fault('stream_not_admitted', 'A handler that wrote to ctx.db or ctx.storage cannot return stream().', 500);
            }
            return returned;
          }
          if (!(returned instanceof Response)) throw new Error('An endpoint must return a Response or stream(…).');
          const bytes = new Uint8Array(await returned.arrayBuffer());
          if (bytes.byteLength > this.limits.responseBytes) {
            throw fault('response_too_large', `The response is ${bytes.byteLength} bytes, over the responseBytes budget of ${this.limits.responseBytes}.`, 500);
          }
          this.#withinQuota(before);
          return new Response(nullBodyStatus(returned.status) ? null : bytes, { status: returned.status, statusText: returned.statusText, headers: returned.headers });
        } finally {
          driver.close();
        }
      });
      return answer instanceof Response ? answer : this.#stream(answer, visitor);
    } catch (error) {
      return errorResponse(this.#fromThrown(error, 'endpoint'));
    }
  }

  /** A streamed response, if a liveConnections slot is free: bounded by streamedBytes and the stream lifetime. */
  #stream(descriptor: StreamDescriptor, visitor: string | undefined): Response {
    const live = this.#live;
    const refused = live.take(visitor);
    if (refused) return errorResponse(refused);
    const source = descriptor.upstream?.body ?? descriptor.body;
    const status = descriptor.upstream?.status ?? 200;
    const headers = new Headers(descriptor.upstream?.headers ?? descriptor.headers);
    if (!source) {
      live.release(visitor);
      return new Response(null, { status, headers });
    }
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        live.release(visitor);
      }
    };
    const { streamedBytes, streamLifetimeMs } = this.limits;
    const reader = source.getReader();
    let sent = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        timer = setTimeout(() => {
          controller.error(new Error(`The stream passed its lifetime of ${streamLifetimeMs} ms.`));
          void reader.cancel();
          release();
        }, streamLifetimeMs);
      },
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            clearTimeout(timer);
            controller.close();
            release();
            return;
          }
          sent += value.byteLength;
          if (sent > streamedBytes) {
            // Cut off mid-read: the status line has already gone out.
            const room = value.byteLength - (sent - streamedBytes);
            if (room > 0) controller.enqueue(value.slice(0, room));
            clearTimeout(timer);
            controller.error(new Error(`The stream passed the streamedBytes budget of ${streamedBytes}.`));
            void reader.cancel();
            release();
            return;
          }
          controller.enqueue(value);
        } catch (error) {
          clearTimeout(timer);
          controller.error(error);
          release();
        }
      },
      cancel() {
        clearTimeout(timer);
        void reader.cancel();
        release();
      },
    });
    return new Response(body, { status, headers });
  }

  /** How many streamed responses and live connections hold a liveConnections slot now. */
  get openStreams(): number {
    return this.#live.used;
  }

  /** How many live-update connections are open now. */
  get liveConnections(): number {
    return this.#live.connections;
  }
}

function nullBodyStatus(status: number): boolean {
  return status === 101 || status === 204 || status === 205 || status === 304;
}

/** The HTTP response of a failure: the runtime error body with its status and headers. */
/** An answer with the call's report header set (or removed: an endpoint cannot set it itself); its headers copied if they are immutable. */
function withReport(response: Response, header: string | undefined): Response {
  if (!header && !response.headers.has(CALL_REPORT_HEADER)) return response;
  let target = response;
  try {
    response.headers.delete(CALL_REPORT_HEADER);
  } catch {
    target = new Response(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
    target.headers.delete(CALL_REPORT_HEADER);
  }
  if (header) target.headers.set(CALL_REPORT_HEADER, header);
  return target;
}

/** The runtime errors answered by errorResponse, by their answer (what a host reports to the app's owner). */
const answeredErrors = new WeakMap<Response, RuntimeErrorInfo>();

/** The runtime error an answer carries, when errorResponse made it (never an endpoint's own JSON). */
export function errorOf(response: Response): RuntimeErrorInfo | undefined {
  return answeredErrors.get(response);
}

/** The stack frames of what a handler threw, by the answer errorResponse made of it (for the call's report only). */
const answeredStacks = new WeakMap<Response, string>();

export function errorResponse(outcome: CallOutcome): Response {
  const error = outcome.error!;
  const response = new Response(JSON.stringify(runtimeErrorBody({ status: outcome.status, ...error })), {
    status: outcome.status,
    headers: { 'content-type': 'application/json', ...outcome.headers },
  });
  answeredErrors.set(response, error);
  if (outcome.stack) answeredStacks.set(response, outcome.stack);
  return response;
}
