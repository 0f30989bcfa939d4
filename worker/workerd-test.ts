/**
 * The trusted entry of `platform test`'s workerd engine: runs one test file with the host kernel's
 * engine side (src/core/host/test-run.ts) inside a Durable Object (`TestStore`), each test on a database
 * emptied before it and a fresh copy of the server module (the engine holds several, `app-0.js` …),
 * streaming `TestRunMessage` lines back; each test waits for the host to acknowledge its 'start' line, each
 * call its 'call' and 'called' lines (the host ends the engine when a handler spins past its deadline).
 * Test and app code get no `process`, no Node built-ins, no code from strings and no network.
 */
import { DurableObjectSqlDriver, type DurableObjectSqlStorage } from '../src/adapters/workerd/durable-object-sql-driver';
import { ENGINE_EXHAUSTED, runTestsInEngine, type TestRunMessage } from '../src/core/host';
import { AppRuntime } from '../src/core/runtime';
import { loadModuleMap } from '../src/core/testing';
import { ACK_PATH, serverCopyName, type TestRunRequest } from './protocol/workerd-test';

interface Env {
  STORE: { idFromName(name: string): unknown; get(id: unknown): { fetch(request: Request): Promise<Response> } };
}

function hexId(): string {
  return [...crypto.getRandomValues(new Uint8Array(12))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** A module of this worker by name, as a specifier (a variable, so the bundler leaves the import alone). */
function relative(name: string): string {
  return `./${name}`;
}

export class TestStore {
  readonly #storage: DurableObjectSqlStorage;
  #used = false;
  #acknowledge: (() => void) | undefined;

  constructor(state: { storage: DurableObjectSqlStorage }) {
    this.#storage = state.storage;
  }

  async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname === ACK_PATH) {
      this.#acknowledge?.();
      this.#acknowledge = undefined;
      return new Response(null, { status: 204 });
    }
    if (this.#used) return new Response('This engine already ran a file.', { status: 409 });
    this.#used = true;
    const run = (await request.json()) as TestRunRequest;
    const lines = new TransformStream<string, string>();
    const writer = lines.writable.getWriter();
    const post = (message: TestRunMessage) => void writer.write(`${JSON.stringify(message)}\n`);
    void this.#run(run, post).finally(() => void writer.close());
    return new Response(lines.readable.pipeThrough(new TextEncoderStream()), { headers: { 'content-type': 'application/x-ndjson' } });
  }

  #run(request: TestRunRequest, post: (message: TestRunMessage) => void): Promise<void> {
    // workerd names a module in stack traces by its name alone.
    const url = request.testModule;
    let copies = 0;
    return runTestsInEngine(
      {
        file: request.file,
        appName: request.manifest.name,
        module: loadModuleMap(url, request.testMap),
        moduleUrl: () => url,
        ...(request.only !== undefined ? { only: request.only } : {}),
        skip: request.skip,
        handlerDeadlineMs: request.handlerDeadlineMs,
        ...(request.overdue ? { overdue: request.overdue } : {}),
        acknowledged: () => new Promise<void>((resolve) => (this.#acknowledge = resolve)),
        async importTests() {
          await import(relative(request.testModule));
        },
        newRuntime: async () => {
          if (copies >= request.serverCopies) throw ENGINE_EXHAUSTED;
          // The test runs once the host has its 'start' line (and every line before it): a test that spins never
          // yields, and what it had not sent would be lost.
          await new Promise<void>((resolve) => (this.#acknowledge = resolve));
          // A fresh, empty database and a copy of the server module no earlier test has touched.
          await this.#storage.deleteAll();
          const server = (await import(relative(serverCopyName(copies++)))) as { default: unknown };
          return new AppRuntime({ manifest: request.manifest, definition: server.default, driver: new DurableObjectSqlDriver(this.#storage), limits: { handlerDeadlineMs: request.handlerDeadlineMs } });
        },
        sessionId: hexId,
        now: () => performance.now(),
      },
      post,
    );
  }
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    return env.STORE.get(env.STORE.idFromName('run')).fetch(request);
  },
};
