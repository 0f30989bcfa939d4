/**
 * One deployed app in one environment, run in a worker thread and fed one request at a time. A request
 * that runs past the handler deadline (plus a grace) ends the thread, is answered 504
 * `handler_deadline_exceeded`, and the next request starts a fresh thread from the database on disk:
 * a runaway handler costs its own request, never the control plane.
 */
import { Worker } from 'node:worker_threads';
import { failedCall } from '../../core/runtime/outcome';
import { errorResponse } from '../../core/runtime/runtime';
import type { Auth } from '../../core/runtime/personas';
import type { StartMessage, WorkerMessage } from './protocol';

const WORKER = new URL('./app-worker.mjs', import.meta.url);

export interface StartFailure {
  code: 'module_invalid' | 'provision_failed' | 'runtime_not_ready';
  message: string;
}

interface Pending {
  id: number;
  resolve(response: Response): void;
  controller?: ReadableStreamDefaultController<Uint8Array>;
}

export class AppProcess {
  readonly #start: StartMessage;
  readonly #deadlineMs: number;
  readonly #graceMs: number;
  readonly #startTimeoutMs: number;
  #worker: Worker | undefined;
  #ready: Promise<StartFailure | undefined> | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  #closed = false;

  constructor(start: StartMessage, options: { deadlineMs: number; graceMs?: number; startTimeoutMs?: number }) {
    this.#start = start;
    this.#deadlineMs = options.deadlineMs;
    this.#graceMs = options.graceMs ?? 1000;
    this.#startTimeoutMs = options.startTimeoutMs ?? 30_000;
  }

  /** Starts the thread (once); resolves undefined when the app is ready, or why it could not start. */
  ready(): Promise<StartFailure | undefined> {
    this.#ready ??= this.#spawn();
    return this.#ready;
  }

  #spawn(): Promise<StartFailure | undefined> {
    const worker = new Worker(WORKER, { resourceLimits: { maxOldGenerationSizeMb: 512 } });
    this.#worker = worker;
    return new Promise((resolve) => {
      let settled = false;
      const settle = (failure: StartFailure | undefined) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (failure) this.#stop();
        resolve(failure);
      };
      const timer = setTimeout(() => settle({ code: 'runtime_not_ready', message: `The app did not start within ${this.#startTimeoutMs} ms.` }), this.#startTimeoutMs);
      worker.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') settle(undefined);
        else if (message.type === 'failed') settle({ code: message.code, message: message.message });
        else this.#onMessage(message);
      });
      worker.on('error', (error) => {
        settle({ code: 'runtime_not_ready', message: `The app crashed while starting: ${error.message}` });
        this.#lost(`The app crashed: ${error.message}`);
      });
      worker.on('exit', () => {
        settle({ code: 'runtime_not_ready', message: 'The app stopped while starting.' });
        if (this.#worker === worker) this.#lost('The app stopped.');
      });
      worker.postMessage(this.#start);
    });
  }

  #onMessage(message: Exclude<WorkerMessage, { type: 'ready' | 'failed' }>): void {
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    switch (message.type) {
      case 'head': {
        const status = message.status;
        const empty = status === 101 || status === 204 || status === 205 || status === 304;
        const body = empty
          ? null
          : new ReadableStream<Uint8Array>({
              start: (controller) => {
                pending.controller = controller;
              },
            });
        pending.resolve(new Response(body, { status, statusText: message.statusText, headers: message.headers }));
        if (empty) this.#pending.delete(message.id);
        break;
      }
      case 'chunk':
        pending.controller?.enqueue(message.bytes);
        break;
      case 'end':
        pending.controller?.close();
        this.#pending.delete(message.id);
        break;
      case 'abort':
        if (pending.controller) pending.controller.error(new Error(message.message));
        else pending.resolve(errorResponse(failedCall(500, 'endpoint_failed', message.message)));
        this.#pending.delete(message.id);
        break;
      default: {
        const unknown: never = message;
        throw new Error(`Unknown app worker message ${JSON.stringify(unknown)}`);
      }
    }
  }

  /** The thread is gone: every open request ends, and the next one starts a new thread. */
  #lost(message: string): void {
    for (const pending of this.#pending.values()) {
      if (pending.controller) pending.controller.error(new Error(message));
      else pending.resolve(errorResponse(failedCall(503, 'app_unavailable', message)));
    }
    this.#pending.clear();
    this.#worker = undefined;
    this.#ready = undefined;
  }

  #stop(): void {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#ready = undefined;
    if (worker) {
      worker.removeAllListeners('exit');
      void worker.terminate();
    }
  }

  /** Serves a request as `auth`. Requests run one at a time; a stream frees the next request once its head is out. */
  fetch(auth: Auth, request: { method: string; url: string; headers: Array<[string, string]>; body?: Uint8Array }): Promise<Response> {
    const run = this.#queue.then(() => this.#fetch(auth, request));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #fetch(auth: Auth, request: { method: string; url: string; headers: Array<[string, string]>; body?: Uint8Array }): Promise<Response> {
    if (this.#closed) return errorResponse(failedCall(503, 'app_unavailable', 'The app is stopping.'));
    const failure = await this.ready();
    if (failure) return errorResponse(failedCall(503, 'app_unavailable', failure.message));
    const worker = this.#worker!;
    const id = this.#nextId++;
    return new Promise<Response>((resolve) => {
      const timer = setTimeout(() => {
        // Past the deadline and its grace the handler is not coming back (a synchronous loop): end the thread.
        if (!this.#pending.has(id)) return;
        this.#pending.delete(id);
        this.#stop();
        this.#lost('The app was restarted after a handler ran past its deadline.');
        resolve(errorResponse(failedCall(504, 'handler_deadline_exceeded', `The handler did not finish within its deadline of ${this.#deadlineMs} ms.`)));
      }, this.#deadlineMs + this.#graceMs);
      this.#pending.set(id, {
        id,
        resolve: (response) => {
          clearTimeout(timer);
          resolve(response);
        },
      });
      const transfer = request.body ? [request.body.buffer as ArrayBuffer] : [];
      worker.postMessage({ type: 'request', id, auth, ...request }, transfer);
    });
  }

  /** Waits for the requests already queued, then ends the thread (a swap to another artifact, a stop). */
  async close(): Promise<void> {
    await this.#queue;
    this.#closed = true;
    this.#stop();
  }

  /** Ends the thread now. */
  kill(): void {
    this.#closed = true;
    this.#stop();
  }
}
