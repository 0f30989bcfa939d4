/** The playground's side of the compiler worker: requests by id, with stale results dropped. */
import type { CompileMode, CompilerRequest, CompilerResponse, CompileTimings } from '../../worker/protocol/compiler';
import type { Diagnostic } from '../core/diagnostics';

export interface CompileResult {
  diagnostics: Diagnostic[];
  artifactId?: string;
  files?: Record<string, Uint8Array>;
  timings: CompileTimings;
}

export type Startup = Extract<CompilerResponse, { type: 'ready' }>['startup'];

export class CompilerClient {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { resolve(result: CompileResult | undefined): void; reject(error: Error): void }>();
  #nextId = 1;
  /** Resolves when esbuild-wasm and TypeScript are loaded, with what each took. */
  readonly ready: Promise<Startup>;

  constructor() {
    this.#worker = new Worker(new URL('../../worker/compiler.worker.ts', import.meta.url), { type: 'module', name: 'compiler' });
    this.ready = new Promise((resolve, reject) => {
      this.#worker.addEventListener('message', (event: MessageEvent<CompilerResponse>) => {
        const message = event.data;
        switch (message.type) {
          case 'ready':
            resolve(message.startup);
            break;
          case 'startup-failed':
            reject(new Error(message.message));
            for (const waiter of this.#waiting.values()) waiter.reject(new Error(message.message));
            this.#waiting.clear();
            break;
          case 'result':
            this.#settle(message.id, (w) => w.resolve({ diagnostics: message.diagnostics, artifactId: message.artifactId, files: message.files, timings: message.timings }));
            break;
          case 'superseded':
            this.#settle(message.id, (w) => w.resolve(undefined));
            break;
          case 'failed':
            this.#settle(message.id, (w) => w.reject(new Error(message.message)));
            break;
          default: {
            const unknown: never = message;
            throw new Error(`Unknown compiler message ${JSON.stringify(unknown)}`);
          }
        }
      });
      this.#worker.addEventListener('error', (event) => reject(new Error(event.message || 'The compiler worker failed to start')));
    });
  }

  #settle(id: number, act: (waiter: { resolve(result: CompileResult | undefined): void; reject(error: Error): void }) => void): void {
    const waiter = this.#waiting.get(id);
    if (!waiter) return;
    this.#waiting.delete(id);
    act(waiter);
  }

  /** Compiles the files; resolves undefined when a newer request superseded this one. */
  compile(files: Record<string, string | Uint8Array>, mode: CompileMode, focus?: string): Promise<CompileResult | undefined> {
    const id = this.#nextId++;
    const request: CompilerRequest = { type: 'compile', id, files, mode, focus };
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#worker.postMessage(request);
    });
  }

  terminate(): void {
    this.#worker.terminate();
  }
}
