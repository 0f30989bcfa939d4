/// <reference lib="webworker" />
/**
 * The compiler worker's entry: esbuild-wasm and TypeScript over the project's files in memory. It runs
 * only trusted code (the compiler); the app's code is bundled, never executed. This script is small on
 * purpose: it starts streaming esbuild's wasm in and starts the bundler worker on it at once, then
 * loads the rest of the compiler (compiler-host.ts: TypeScript's 9 MB script and the platform's
 * declarations), so that parsing TypeScript and starting the bundler run on two cores at the same time
 * instead of one after the other. Requests that arrive while the rest loads are kept and handed over.
 */
import wasmURL from 'esbuild-wasm/esbuild.wasm?url';
import { openProject, type Project } from '../src/core/analyze/project';
import { ALL_TARGETS, type BuildTarget, type BundleOptions, type BundleResult, type ProjectBundler } from '../src/core/build/bundle';
import { RemoteBundler } from '../src/core/build/remote-bundler';
import { MemoryFileSystem } from '../src/core/fs';
import { MANIFEST_FILE, type Manifest } from '../src/core/manifest/types';
import type { BundlerRequest, BundlerResponse } from './protocol/bundler';
import type { CompilerRequest, CompilerResponse } from './protocol/compiler';

declare const self: DedicatedWorkerGlobalScope;

const workerStarted = performance.now();

function post(message: CompilerResponse, transfer: Transferable[] = []): void {
  self.postMessage(message, transfer);
}

/**
 * esbuild's wasm, compiled as it streams in, with progress posted as bytes arrive (the page shows it:
 * 14 MB is most of the start-up on a slow connection).
 */
async function loadEsbuildWasm(): Promise<WebAssembly.Module> {
  const response = await fetch(wasmURL);
  if (!response.ok || !response.body) throw new Error(`esbuild's wasm could not be loaded (${response.status}).`);
  const total = Number(response.headers.get('content-length') ?? 0) || 0;
  let loaded = 0;
  let reported = 0;
  const counted = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        loaded += chunk.byteLength;
        // About 50 updates over the whole file, and the last one.
        if (loaded - reported > (total || 14e6) / 50 || loaded === total) {
          reported = loaded;
          post({ type: 'progress', loaded, total });
        }
        controller.enqueue(chunk);
      },
    }),
  );
  return WebAssembly.compileStreaming(new Response(counted, { headers: { 'content-type': 'application/wasm' } }));
}

/**
 * The project bundler of this worker's compiles: a worker of its own (worker/bundler.worker.ts), so a
 * preview's bundle is made while this thread type-checks. It is given the esbuild wasm this worker
 * compiled; this worker keeps its own esbuild too, for the tests' and the terminal commands' bundles.
 */
export class WorkerBundler implements ProjectBundler {
  readonly offThread = true;
  readonly #worker = new Worker(new URL('./bundler.worker.ts', import.meta.url), { type: 'module', name: 'bundler' });
  readonly #remote = new RemoteBundler(
    (request) => this.#post(request),
    ({ fs }) => {
      if (!(fs instanceof MemoryFileSystem)) throw new Error('The bundler worker bundles projects held in memory.');
      return { files: fs.entries() };
    },
  );
  readonly ready: Promise<void>;

  constructor(wasmModule: Promise<WebAssembly.Module>) {
    let started: { resolve(): void; reject(error: Error): void };
    this.ready = new Promise<void>((resolve, reject) => (started = { resolve, reject }));
    this.#worker.onmessage = (event: MessageEvent<BundlerResponse>) => {
      const message = event.data;
      if (message.type === 'ready') return started.resolve();
      if (message.type === 'startup-failed') return started.reject(new Error(`The bundler could not start: ${message.message}`));
      this.#remote.answer(message);
    };
    this.#worker.onerror = (event) => {
      const error = new Error(`The bundler failed: ${event.message}`);
      started.reject(error);
      this.#remote.fail(error);
    };
    void wasmModule.then((module) => this.#post({ type: 'init', wasmModule: module }), (error: unknown) => started.reject(error instanceof Error ? error : new Error(String(error))));
  }

  #post(request: BundlerRequest): void {
    this.#worker.postMessage(request);
  }

  bundle(project: Project, targets: readonly BuildTarget[] = ALL_TARGETS, options?: BundleOptions): Promise<BundleResult> {
    return this.#remote.bundle(project, targets, options);
  }

  async dispose(): Promise<void> {
    await this.#remote.dispose();
    this.#worker.terminate();
  }
}

/** What the compiler host is started with: the wasm and the bundler already on their way. */
export interface CompilerStart {
  started: number;
  wasmModule: Promise<WebAssembly.Module>;
  bundler: WorkerBundler;
  post: typeof post;
}

const wasmModule = loadEsbuildWasm();
// Not left unhandled while the host loads: the host reports a failed start.
wasmModule.catch(() => undefined);
const bundler = new WorkerBundler(wasmModule);
bundler.ready.catch(() => undefined);

/**
 * A preview asked for before the host has loaded (a share link's, a zip's first build): its files are
 * bundled at once on a guess of the project made without TypeScript (the manifest's entrypoints, the
 * default renderer), and the outcome is dropped. It is not shown: it warms the bundler while
 * TypeScript loads on this thread, so that the build the host then makes of the same files, once they
 * are analysed, is an incremental rebuild of esbuild's contexts (the bundler worker bundles one at a
 * time) instead of a cold bundle of every module by a wasm whose code is not compiled yet. A guess the
 * analysis contradicts (another renderer) only costs the warm-up.
 */
function warmBundle(request: CompilerRequest): void {
  if (request.type !== 'compile' || request.mode !== 'preview') return;
  const text = request.files[MANIFEST_FILE];
  let manifest: Manifest | undefined;
  try {
    manifest = typeof text === 'string' ? (JSON.parse(text) as Manifest) : undefined;
  } catch {
    return;
  }
  if (typeof manifest?.entrypoints?.client !== 'string' || typeof manifest.entrypoints.server !== 'string') return;
  const fs = new MemoryFileSystem(request.files);
  void bundler.ready
    .then(() => openProject(fs, manifest))
    .then((project) => bundler.bundle(project, ['client', 'server'], { preview: true }))
    .catch(() => undefined);
}

/** Requests that came before the host loaded, in order. */
const early: CompilerRequest[] = [];
let receive: ((request: CompilerRequest) => void) | undefined;
self.addEventListener('message', (event: MessageEvent<CompilerRequest>) => {
  if (receive) return receive(event.data);
  if (!early.some((request) => request.type === 'compile' && request.mode === 'preview')) warmBundle(event.data);
  early.push(event.data);
});

import('./compiler-host').then(
  (host) => {
    receive = host.startCompilerHost({ started: workerStarted, wasmModule, bundler, post });
    for (const request of early.splice(0)) receive(request);
  },
  (error: unknown) => post({ type: 'startup-failed', message: `The compiler could not load: ${error instanceof Error ? error.message : String(error)}` }),
);
