/**
 * One deployed app in one environment, run in its own workerd process: the trusted entry, the app's
 * server bundle and its Durable Object (SQLite under the data directory). Requests go to it over
 * loopback HTTP, each with an identity signed under a key made for this start. A watchdog ends the
 * process when a handler holds the isolate past the deadline plus a grace (a `while (true) {}`), or
 * when it holds more memory than allowed; the next request starts it again from its committed data.
 *
 * Memory is judged where requests begin and end, not only by a timer, so that what a request meets does
 * not depend on when a timer happens to run (a busy machine runs it late): before a request is sent and
 * once an answer has been handed over, with nothing else in flight, an engine over `memoryLimitBytes` is
 * ended and the next request meets a fresh one. The once-a-second reading ends an idle engine over that
 * limit, and ends a busy one (requests in flight fail) only past `memoryHardLimitBytes`: a handler that
 * keeps allocating is stopped even mid-call.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { deadlineExceeded, failedCall, errorResponse, type Auth } from '../../core/runtime';
import { BATCH_AUTH, BATCH_MAX_CALLS, BATCH_PATH, BATCH_URL, batchCall, BatchReader, encodeBatch, type BatchCall, IDENTITY_HEADER, LOADED_PATH, READY_PATH, signIdentity, freeTimeLimit, describeError, Watchdog } from '../../core/host';
import type { AppStart } from '../../../worker/workerd-app';
import { EngineStartError, WorkerdEngine, type EngineProcess } from './workerd-engine';
import type { WorkerdPool } from './pool';
import { POOL_HEADER_PREFIX } from '../../../worker/protocol/pool';
import { isWriteRefusal } from '../../core/fs';

/** Answers of at most this many bytes (by their Content-Length) are read whole before they are passed on. */
const BUFFERED_BYTES = 64 * 1024;

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect', 'te', 'trailer', 'proxy-connection']);

export interface StartFailure {
  code: 'module_invalid' | 'provision_failed' | 'runtime_not_ready';
  message: string;
}

export interface HostedRequest {
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body?: Uint8Array;
  /** Who a live connection or streamed response holds its slot for: one visitor holds at most its share. */
  visitor?: string;
}

export interface AppEngineOptions {
  /** The engine's own directory (config, pid file). */
  dir: string;
  /** Where its Durable Object keeps its SQLite files. */
  storageDir: string;
  /** The bundled trusted entry and the app's server bundle, as files. */
  entryPath: string;
  appPath: string;
  start: Omit<AppStart, 'identityKey'>;
  deadlineMs: number;
  graceMs: number;
  startTimeoutMs: number;
  /** The resident memory past which the engine is ended between requests. */
  memoryLimitBytes: number;
  /** The resident memory past which the engine is ended at once, requests in flight or not (default twice `memoryLimitBytes`). */
  memoryHardLimitBytes?: number;
  heapMb: number;
  /**
   * Serves the environment from a pool's process (pool.ts) under this name, instead of a process of
   * its own: `dir` and `storageDir` are then unused (its data is the pool's), and so are `heapMb` and
   * the memory limits (the pool's own apply to its processes).
   */
  pool?: { pool: WorkerdPool; key: string; alone?: boolean };
}

interface Pending {
  settle(response: Response): void;
  /** Ends the request to the engine (its connection), if it is still open. */
  cancel(error: Error): void;
}

/**
 * Queries and mutations sent to an engine and not yet answered, past which the next wait at the
 * control plane and go on together (src/core/host/batch.ts): two, so that the engine has the next
 * batch as it ends one.
 */
const WIRE_IN_FLIGHT = 2;

/** A call waiting to go in the next batch, with what answers its caller (and the request, should the engine be gone by then). */
interface Queued {
  call: BatchCall;
  auth: Auth;
  request: HostedRequest;
  resolve(response: Response): void;
}

interface Running {
  engine: EngineProcess;
  /** Set as the engine is given up (its requests fail, the next start makes another): calls still waiting go to that one. */
  lost?: boolean;
  identityKey: Uint8Array;
  /** The next identity's sequence number: each is accepted once by the engine. */
  sequence: number;
}

export class AppEngine {
  readonly #options: AppEngineOptions;
  #running: Promise<Running | StartFailure> | undefined;
  /** Requests sent and not answered: past the deadline and its grace with no answer from the isolate, the engine is ended. */
  readonly #pending: Watchdog<Pending>;
  /** The current engine, for the watchdog and the memory reading. */
  #current: Running | undefined;
  #memoryCheck: ReturnType<typeof setInterval> | undefined;
  /** Requests sent and not yet handed over whole (a buffered answer read, a streamed one's head): memory is judged when none is. */
  #inFlight = 0;
  /** Streamed answers still flowing to their reader (a live stream, a `stream()` body): the engine is busy while one is open. */
  #streams = 0;
  /** Requests (and `ready` calls) waiting for the engine to start: it is not idle while one waits. */
  #waiting = 0;
  /** When a request was last sent or an answer last ended (performance.now()): how long the engine has slept since. */
  #lastActive = performance.now();
  #closed = false;
  /**
   * Connections to the engine, kept open between requests (Node's fetch would parse and tee every
   * request and answer as web streams; this is plain HTTP/1.1 over loopback). No cap: one per
   * request in flight, as fetch did.
   */
  readonly #agent = new Agent({ keepAlive: true, scheduling: 'lifo' });

  constructor(options: AppEngineOptions) {
    this.#options = options;
    this.#pending = new Watchdog(options.deadlineMs + options.graceMs, (pending) => {
      const current = this.#current;
      // What is stuck is ended: this engine's process, or a pool's, whose host names the culprit while
      // this request is still in flight and moves it out.
      current?.engine.stalled?.();
      pending.settle(errorResponse(deadlineExceeded(options.deadlineMs)));
      const message = 'The app was restarted after a handler ran past its deadline.';
      if (current?.engine.stalled) this.#lost(current, message);
      else if (current) this.#end(current, message);
    });
  }

  /** The process serving the app now (a pool's shared one for a lease), if one runs. */
  get pid(): number | undefined {
    return this.#current?.engine.pid;
  }

  /** Starts the engine (once); resolves undefined when the app is ready, or why it could not start. */
  async ready(): Promise<StartFailure | undefined> {
    const running = await this.#waitFor(this.#start());
    return 'engine' in running ? undefined : running;
  }

  /** `started`, with this caller counted as waiting (the engine is not idle meanwhile). */
  async #waitFor<T>(started: Promise<T>): Promise<T> {
    this.#waiting++;
    try {
      return await started;
    } finally {
      this.#waiting--;
      this.#lastActive = performance.now();
    }
  }

  /**
   * Runs the engine's process and loads the app's modules, without starting the app: its data is not
   * opened until `ready` (or a request) starts it. So an engine for the next generation can be made
   * while another engine still serves the same data, and take over once that one has closed.
   */
  async launch(): Promise<StartFailure | undefined> {
    const launched = await this.#launch();
    return 'engine' in launched ? undefined : launched;
  }

  #start(): Promise<Running | StartFailure> {
    this.#running ??= this.#startApp();
    return this.#running;
  }

  #launched: Promise<Running | StartFailure> | undefined;

  /**
   * The engine's process, spawned once. `checkLoaded`: ask whether the app's module loaded before
   * anything opens its data (what `launch` needs, for an engine made while another still serves the
   * data); a start that goes on to `READY_PATH` at once skips it, since that answer says the same.
   */
  #launch(checkLoaded = true): Promise<Running | StartFailure> {
    this.#launched ??= this.#spawnProcess(checkLoaded);
    return this.#launched;
  }

  async #spawnProcess(checkLoaded: boolean): Promise<Running | StartFailure> {
    const options = this.#options;
    // A fresh identity key for each start: made here for a process of its own, by the pool for a lease.
    let identityKey: Uint8Array = randomBytes(32);
    let engine: EngineProcess;
    try {
      if (options.pool) {
        const lease = await options.pool.pool.lease({ key: options.pool.key, start: options.start, appPath: options.appPath }, { alone: options.pool.alone === true });
        engine = lease;
        identityKey = lease.identityKey;
      } else {
        const start: AppStart = { ...options.start, identityKey: Buffer.from(identityKey).toString('hex') };
        engine = await WorkerdEngine.start({
          dir: options.dir,
          modules: [{ name: 'entry.js', path: options.entryPath }, { name: 'app.js', path: options.appPath }],
          durableObject: { className: 'AppStore', storageDir: options.storageDir },
          secrets: { START: JSON.stringify(start) },
          heapMb: options.heapMb,
          // The trusted entry takes V8's gc() before the app loads and collects after each export page and import batch.
          exposeGc: true,
          compatibilityDate: '2025-09-01',
          startTimeoutMs: options.startTimeoutMs,
        });
      }
    } catch (error) {
      this.#launched = undefined;
      // A write refused under the project (a link where the engine's files go) is not the app's fault: its host reports it.
      if (isWriteRefusal(error)) throw error;
      // Still starting at the timeout (say, a module that loops as it loads) is a runtime that never
      // became ready; an engine that stopped names the module it could not load.
      const message = describeError(error);
      return { code: error instanceof EngineStartError && error.timedOut ? 'runtime_not_ready' : 'module_invalid', message };
    }
    const running: Running = { engine, identityKey, sequence: 0 };
    void engine.exited.then(() => {
      const reason = engine.lostReason();
      this.#lost(running, reason ? `The app stopped: ${reason}.` : 'The app stopped.');
    });
    if (!checkLoaded) return running;
    // Whether the app's module loaded, asked before the app is started on its data.
    const answer = await this.#ask(running, LOADED_PATH, (body) => (body.loaded === true ? 'ok' : body.code === 'module_invalid' ? 'module_invalid' : undefined));
    if (answer) {
      await engine.kill();
      this.#launched = undefined;
      return answer;
    }
    return running;
  }

  /**
   * A signed GET of one of the entry's start paths: undefined when it says 'ok', else why not (a code
   * `accept` picks from the answer, with its message, or runtime_not_ready for any other answer).
   */
  async #ask(running: Running, path: string, accept: (body: Record<string, unknown>) => 'ok' | StartFailure['code'] | undefined): Promise<StartFailure | undefined> {
    // Counted while this thread is free (see freeTimeLimit): an answer that came during a type check is read, not timed out.
    const abort = new AbortController();
    const limit = freeTimeLimit(this.#options.startTimeoutMs, () => abort.abort(new Error(`The app did not answer its start (${path}) within ${this.#options.startTimeoutMs} ms.`)));
    try {
      const response = await fetch(`http://127.0.0.1:${running.engine.port}${path}`, {
        headers: { ...running.engine.headers, [IDENTITY_HEADER]: signIdentity(running.identityKey, { auth: { appUserId: 'ready', kind: 'guest', roles: [], permissions: [], workspaceIds: [], sessionId: 'ready' } as unknown as Auth, url: 'http://ready.localhost/', method: 'GET', sequence: running.sequence++ }) },
        signal: abort.signal,
      });
      const body = ((await response.json().catch(() => undefined)) ?? {}) as Record<string, unknown>;
      limit.clear();
      const code = accept(body);
      if (code === 'ok') return undefined;
      if (code && typeof body.message === 'string') return { code, message: body.message };
      return { code: 'runtime_not_ready', message: `The app answered its start with HTTP ${response.status}.` };
    } catch (error) {
      limit.clear();
      return { code: 'runtime_not_ready', message: `The app did not answer when started: ${describeError(error)}` };
    }
  }

  /** Launches the engine (unless `launch` already did) and starts the app in it: it provisions its data. */
  async #startApp(): Promise<Running | StartFailure> {
    const launched = await this.#launch(false);
    if (!('engine' in launched)) {
      this.#running = undefined;
      return launched;
    }
    const running = launched;
    const { engine } = running;
    const answer = await this.#ask(running, READY_PATH, (body) => (body.ready === true ? 'ok' : body.code === 'module_invalid' || body.code === 'provision_failed' ? body.code : undefined));
    if (answer) {
      await engine.kill();
      this.#running = undefined;
      this.#launched = undefined;
      return answer;
    }
    this.#current = running;
    // Memory is read before each request is sent and after each answer (see fetch), and once a second
    // here: past the limit when idle, past the hard limit whatever is in flight.
    clearInterval(this.#memoryCheck);
    this.#memoryCheck = setInterval(() => this.#overMemory(running, this.#inFlight === 0 ? this.#options.memoryLimitBytes : this.#hardLimit), 1_000);
    this.#memoryCheck.unref();
    return running;
  }

  get #hardLimit(): number {
    return this.#options.memoryHardLimitBytes ?? 2 * this.#options.memoryLimitBytes;
  }

  /** Ends the engine when it holds more than `limit` (its memory limit by default); says whether it did. */
  #overMemory(running: Running, limit = this.#options.memoryLimitBytes): boolean {
    if (this.#current !== running) return false;
    const resident = running.engine.residentBytes();
    if (resident === undefined || resident <= limit) return false;
    this.#end(running, `The app was restarted: it held ${Math.round(resident / 1048576)} MiB, over its limit of ${Math.round(limit / 1048576)} MiB.`);
    return true;
  }

  #end(running: Running, message: string): void {
    this.#lost(running, message);
    void running.engine.kill();
  }

  /** The engine is gone: open requests end, and the next one starts a new engine. */
  #lost(running: Running, message: string): void {
    running.lost = true;
    void this.#launched?.then((launched) => {
      if (launched === running) this.#launched = undefined;
    });
    void this.#running?.then((current) => {
      if (current !== running) return;
      this.#running = undefined;
      if (this.#current === running) this.#current = undefined;
      clearInterval(this.#memoryCheck);
      this.#memoryCheck = undefined;
      for (const pending of this.#pending.clear()) {
        pending.settle(errorResponse(failedCall(503, 'app_unavailable', message)));
        pending.cancel(new Error(message));
      }
    });
  }

  /** Serves a request as `auth`. Requests may overlap; the runtime in the isolate runs them one at a time. */
  async fetch(auth: Auth, request: HostedRequest): Promise<Response> {
    if (this.#closed) return errorResponse(failedCall(503, 'app_unavailable', 'The app is stopping.'));
    let running = await this.#waitFor(this.#start());
    // An engine over its memory takes no further request: it is ended and a fresh one serves this one,
    // whatever the once-a-second reading has seen so far.
    if ('engine' in running && this.#inFlight === 0 && this.#overMemory(running)) {
      await this.#waitFor(running.engine.exited);
      running = await this.#waitFor(this.#start());
    }
    if (!('engine' in running)) return errorResponse(failedCall(503, 'app_unavailable', running.message));
    // A query or mutation while others are at the engine waits for the next batch.
    const call = batchCall(auth, request);
    if (call) {
      if (this.#wireSent >= WIRE_IN_FLIGHT) return new Promise<Response>((resolve) => this.#queued.push({ call, auth, request, resolve }));
      this.#wireSent++;
      return this.#send(running, auth, request).finally(() => this.#wireEnded(running));
    }
    return this.#send(running, auth, request);
  }

  /** Queries and mutations at the engine (alone or in a batch), and those waiting for the next batch. */
  #wireSent = 0;
  readonly #queued: Queued[] = [];

  /** A query or mutation (or a batch of them) was answered: the calls waiting go on together. */
  #wireEnded(running: Running): void {
    this.#wireSent--;
    if (!this.#queued.length) return;
    if (running.lost || this.#current !== running) {
      // The engine they waited for is gone (ended past a deadline or its memory): they are asked again,
      // as a request that comes now is, of the engine that serves next (once the loss is settled).
      const waiting = this.#queued.splice(0);
      setTimeout(() => {
        for (const queued of waiting) void this.fetch(queued.auth, queued.request).then(queued.resolve);
      }, 0);
      return;
    }
    const batch = this.#queued.splice(0, BATCH_MAX_CALLS);
    this.#wireSent++;
    void this.#sendBatch(running, batch).finally(() => this.#wireEnded(running));
  }

  /** One request to the engine, answered with its answer (any failure an error answer). */
  #send(running: Running, auth: Auth, request: HostedRequest): Promise<Response> {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of request.headers) {
      const lower = name.toLowerCase();
      // The identity and a pool's lease headers are set here, never taken from the request.
      if (HOP_BY_HOP.has(lower) || lower === IDENTITY_HEADER || lower.startsWith(POOL_HEADER_PREFIX)) continue;
      const previous = headers[lower];
      headers[lower] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
    }
    for (const [name, value] of Object.entries(running.engine.headers ?? {})) headers[name] = value;
    headers[IDENTITY_HEADER] = signIdentity(running.identityKey, { auth, url: request.url, method: request.method, body: request.body ?? null, sequence: running.sequence++, ...(request.visitor !== undefined ? { visitor: request.visitor } : {}) });
    if (request.body) headers['content-length'] = String(request.body.byteLength);
    const url = new URL(request.url);
    const engine = running;
    return new Promise<Response>((resolve) => {
      let settled = false;
      const held = this.#hold(engine);
      const pending: Pending = {
        settle: (response) => {
          if (settled) return;
          settled = true;
          held.release();
          resolve(response);
        },
        cancel: (error) => sent.destroy(error),
      };
      const unreachable = (error: unknown) => {
        held.unreachable();
        this.#pending.close(pending);
        pending.settle(errorResponse(failedCall(503, 'app_unavailable', `The app could not be reached: ${describeError(error)}`)));
      };
      const sent = httpRequest({ agent: this.#agent, host: '127.0.0.1', port: running.engine.port, method: request.method, path: `${url.pathname}${url.search}`, headers }, (answer) => {
        this.#pending.progress();
        this.#pending.close(pending);
        void engineResponse(request.method, answer, this.#streamOpened).then(pending.settle, unreachable);
      });
      sent.once('error', unreachable);
      this.#pending.open(pending);
      sent.end(request.body ? Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength) : undefined);
    });
  }

  /**
   * Calls that waited, sent to the engine together (src/core/host/batch.ts) under one identity signed
   * for the batch; each caller is answered as its line arrives, and each line is a sign of life for the
   * watchdog. Settles when every caller has been answered.
   */
  #sendBatch(running: Running, batch: Queued[]): Promise<void> {
    const body = encodeBatch(batch.map((queued) => queued.call));
    const headers: Record<string, string> = { ...running.engine.headers, 'content-type': 'application/json', 'content-length': String(body.byteLength) };
    headers[IDENTITY_HEADER] = signIdentity(running.identityKey, { auth: BATCH_AUTH, url: BATCH_URL, method: 'POST', body, sequence: running.sequence++ });
    const engine = running;
    return new Promise<void>((finished) => {
      /** The next call to answer: the engine answers them in order. */
      let next = 0;
      const held = this.#hold(engine);
      const answerNext = (response: Response) => {
        if (next < batch.length) batch[next++]!.resolve(response);
      };
      /** Every call still unanswered gets an answer of its own made by `answer`; the batch is over. */
      const answerRest = (answer: () => Response) => {
        while (next < batch.length) answerNext(answer());
        this.#pending.close(pending);
        held.release();
        finished();
      };
      const pending: Pending = {
        // The watchdog's answer (or the engine's loss) for the call the engine is on; the rest never ran.
        settle: (response) => {
          answerNext(response);
          answerRest(() => errorResponse(failedCall(503, 'app_unavailable', 'The app was restarted before this call ran.')));
        },
        cancel: (error) => sent.destroy(error),
      };
      const unreachable = (error: unknown) => {
        if (next < batch.length) held.unreachable();
        answerRest(() => errorResponse(failedCall(503, 'app_unavailable', `The app could not be reached: ${describeError(error)}`)));
      };
      const sent = httpRequest({ agent: this.#agent, host: '127.0.0.1', port: running.engine.port, method: 'POST', path: BATCH_PATH, headers }, (answer) => {
        this.#pending.progress();
        if (answer.statusCode !== 200) {
          // Refused whole (the app not running, say): each call gets the answer the batch got.
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.once('end', () => {
            const text = Buffer.concat(chunks).toString();
            answerRest(() => new Response(text, { status: answer.statusCode ?? 502, headers: answerHeaders(answer) }));
          });
          answer.once('error', unreachable);
          return;
        }
        const reader = new BatchReader();
        answer.on('data', (chunk: Buffer) => {
          let answers: Response[];
          try {
            answers = reader.push(chunk);
          } catch (error) {
            answer.destroy();
            unreachable(error);
            return;
          }
          for (const one of answers) {
            this.#pending.progress();
            answerNext(one);
          }
        });
        answer.once('end', () => answerRest(() => errorResponse(failedCall(503, 'app_unavailable', 'The app could not be reached: its answer to the calls ended early.'))));
        answer.once('error', unreachable);
        answer.once('close', () => {
          if (!answer.complete) unreachable(new Error('the engine closed the connection before its answer ended'));
        });
      });
      sent.once('error', unreachable);
      this.#pending.open(pending);
      sent.end(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
    });
  }

  /**
   * A request (or a batch) holds `engine` from now until `release` (which does its work once): counted
   * in flight, and, in a pool, open for the culprit's search until its answer's head or end (`unreachable`
   * marks one that never reached it). The last one out judges the engine's memory before its answer is
   * handed over.
   */
  #hold(engine: Running): { release(): void; unreachable(): void } {
    const ended = engine.engine.began?.();
    this.#inFlight++;
    this.#lastActive = performance.now();
    let released = false;
    return {
      unreachable: () => ended?.(true),
      release: () => {
        if (released) return;
        released = true;
        ended?.();
        this.#inFlight--;
        this.#lastActive = performance.now();
        if (this.#inFlight === 0) this.#overMemory(engine);
      },
    };
  }

  /** Counts a streamed answer as open until its last byte has gone (or its reader left). */
  readonly #streamOpened = (answer: IncomingMessage): void => {
    this.#streams++;
    answer.once('close', () => {
      this.#streams--;
      this.#lastActive = performance.now();
    });
  };

  /**
   * Puts the engine to sleep when nothing has used it for `idleMs`: no request in flight, no streamed
   * answer open, and none sent or ended within that time. When it does, the engine takes no further
   * request (the host makes a new one for the next, which starts on the same committed data) and the
   * promise answered settles once its process has ended; undefined when it is not idle.
   */
  sleepIfIdle(idleMs: number, now = performance.now()): Promise<void> | undefined {
    if (this.#closed || this.#inFlight > 0 || this.#streams > 0 || this.#waiting > 0 || this.#pending.size > 0 || this.#queued.length > 0) return undefined;
    if (now - this.#lastActive < idleMs) return undefined;
    return this.kill();
  }

  /** Waits briefly for open requests, then ends the engine (a swap to another artifact, a stop). */
  async close(): Promise<void> {
    this.#closed = true;
    const deadline = Date.now() + this.#options.deadlineMs + this.#options.graceMs;
    while ((this.#pending.size > 0 || this.#queued.length > 0) && Date.now() < deadline) await new Promise((done) => setTimeout(done, 20));
    await this.kill();
  }

  /** Ends the engine now. */
  async kill(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#memoryCheck);
    this.#agent.destroy();
    // The process, whether or not the app was started in it.
    const launched = await this.#launched;
    if (launched && 'engine' in launched) await launched.engine.kill();
  }
}

/** An engine's answer's headers, hop-by-hop ones dropped. */
function answerHeaders(answer: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = answer.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/**
 * The engine's answer as a Response, hop-by-hop headers dropped. A small one of known length is read
 * whole and passed on as bytes (Node writes it with its length at once, not as a chunked stream); any
 * other body streams as it arrives, so a slow reader still holds the engine back.
 */
function engineResponse(method: string, answer: IncomingMessage, streamed: (answer: IncomingMessage) => void): Promise<Response> {
  const init = { status: answer.statusCode ?? 502, statusText: answer.statusMessage ?? '', headers: answerHeaders(answer) };
  if (method === 'HEAD' || init.status === 204 || init.status === 304) {
    answer.resume();
    return Promise.resolve(new Response(null, init));
  }
  const length = Number(answer.headers['content-length'] ?? NaN);
  if (!(length <= BUFFERED_BYTES)) {
    streamed(answer);
    return Promise.resolve(new Response(Readable.toWeb(answer) as ReadableStream<Uint8Array>, init));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    answer.on('data', (chunk: Buffer) => chunks.push(chunk));
    answer.once('end', () => resolve(new Response((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)) as Uint8Array as BodyInit, init)));
    answer.once('error', reject);
    answer.once('close', () => {
      if (!answer.complete) reject(new Error('the engine closed the connection before its answer ended'));
    });
  });
}
