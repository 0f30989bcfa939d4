/**
 * An app worker thread: one deployed app in one environment. It runs sql.js, the core runtime and the
 * app's server bundle, answers requests one at a time as the control plane sends them, and writes the
 * database to disk after every call that changed it, before answering: what was answered is kept. The
 * control plane ends this thread when a handler runs past its deadline (a `while (true) {}` cannot be
 * stopped otherwise); what was not committed is lost, as the transaction semantics say.
 */
import { pathToFileURL } from 'node:url';
import { parentPort } from 'node:worker_threads';
import { existsSync, readFileSync } from 'node:fs';
import { AppRuntime } from '../../core/runtime/runtime';
import type { SqlJsDriver } from '../../adapters/sqljs/sqljs-driver';
import { nodeSqlDriverFactory } from '../../adapters/node/sqljs';
import { writeAtomic } from '../files';
import type { HostMessage, RequestMessage, StartMessage, WorkerMessage } from './protocol';

const port = parentPort!;
const post = (message: WorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

let runtime: AppRuntime | undefined;
let driver: SqlJsDriver | undefined;
let databasePath: string | undefined;
let lastChanges = 0;

function describe(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}

// What app code throws outside a call (a timer, a forgotten promise) must not end the thread.
process.on('uncaughtException', () => undefined);
process.on('unhandledRejection', () => undefined);

/** Writes the database when a call changed it (SQLite's change counter says so). */
function persist(): void {
  if (!driver || !databasePath) return;
  const changes = Number(driver.all('SELECT total_changes() AS n')[0]?.n ?? 0);
  if (changes === lastChanges) return;
  const bytes = driver.export();
  // sql.js reopens the database to export it, which resets its pragmas; the runtime's ref actions need foreign keys.
  driver.exec('PRAGMA foreign_keys = ON');
  lastChanges = Number(driver.all('SELECT total_changes() AS n')[0]?.n ?? 0);
  writeAtomic(databasePath, bytes);
}

async function start(message: StartMessage): Promise<void> {
  let definition: unknown;
  try {
    definition = ((await import(pathToFileURL(message.serverPath).href)) as { default?: unknown }).default;
  } catch (error) {
    post({ type: 'failed', code: 'module_invalid', message: `The server module could not be loaded: ${describe(error)}` });
    return;
  }
  const factory = await nodeSqlDriverFactory();
  databasePath = message.databasePath;
  const state = message.probeState ?? (databasePath && existsSync(databasePath) ? new Uint8Array(readFileSync(databasePath)) : undefined);
  driver = factory(state);
  try {
    runtime = new AppRuntime({
      manifest: message.manifest,
      definition,
      driver,
      env: message.env,
      secret: message.secret,
      ...(message.handlerDeadlineMs ? { limits: { handlerDeadlineMs: message.handlerDeadlineMs } } : {}),
    });
  } catch (error) {
    const text = describe(error);
    const code = /another schema/.test(text) ? 'provision_failed' : 'module_invalid';
    post({ type: 'failed', code, message: code === 'provision_failed' ? `The ${message.databasePath ? '' : 'environment\'s '}data was created for another database declaration: ${text}` : `The server module is not a server definition: ${text}` });
    return;
  }
  // A new database (schema made) is written at once.
  persist();
  post({ type: 'ready' });
}

async function serve(message: RequestMessage): Promise<void> {
  const { id } = message;
  if (!runtime) {
    post({ type: 'abort', id, message: 'The app is not running.' });
    return;
  }
  let response: Response;
  try {
    const init: RequestInit = { method: message.method, headers: message.headers };
    if (message.body && message.method !== 'GET' && message.method !== 'HEAD') init.body = message.body as BodyInit;
    response = await runtime.fetch(Object.freeze({ ...message.auth }), new Request(message.url, init));
    persist();
  } catch (error) {
    post({ type: 'abort', id, message: describe(error) });
    return;
  }
  post({ type: 'head', id, status: response.status, statusText: response.statusText, headers: [...response.headers] });
  if (!response.body) {
    post({ type: 'end', id });
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const bytes = value.slice();
      post({ type: 'chunk', id, bytes }, [bytes.buffer as ArrayBuffer]);
    }
    post({ type: 'end', id });
  } catch (error) {
    post({ type: 'abort', id, message: describe(error) });
  }
}

port.on('message', (message: HostMessage) => {
  if (message.type === 'start') void start(message);
  else void serve(message);
});
