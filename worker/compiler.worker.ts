/// <reference lib="webworker" />
/**
 * The compiler worker: esbuild-wasm and TypeScript over the project's files in memory. It runs only
 * trusted code (the compiler); the app's code is bundled here, never executed.
 */
import * as esbuild from 'esbuild-wasm';
import wasmURL from 'esbuild-wasm/esbuild.wasm?url';
import embedded from 'virtual:platform-library';
import { analyzeProject } from '../src/core/analyze/analyze';
import { compileProject, type Compiler } from '../src/core/build/build';
import { Bundler } from '../src/core/build/bundle';
import type { Library } from '../src/core/build/library';
import { TypeCheckSession } from '../src/core/build/typecheck';
import { MemoryFileSystem } from '../src/core/fs';
import type { CompilerRequest, CompilerResponse } from './protocol/compiler';

declare const self: DedicatedWorkerGlobalScope;

const INSTALL_UNAVAILABLE = 'Packages cannot be installed in the browser playground unless a WebContainer is available.';

function post(message: CompilerResponse, transfer: Transferable[] = []): void {
  self.postMessage(message, transfer);
}

const compiler: Promise<Compiler> = (async () => {
  const started = performance.now();
  const library: Library = { files: new Map(embedded.files), rendererVersion: embedded.rendererVersion, toolchainVersion: embedded.toolchainVersion };
  const libraryReady = performance.now();
  // esbuild's wasm streams in and compiles while TypeScript parses its libraries on this thread.
  const esbuildReady = esbuild.initialize({ wasmURL, worker: false }).then(() => performance.now());
  const typecheck = new TypeCheckSession(library);
  typecheck.warm();
  const typescriptReady = performance.now();
  const esbuildDone = await esbuildReady;
  post({
    type: 'ready',
    startup: { library: libraryReady - started, esbuild: esbuildDone - started, typescript: typescriptReady - libraryReady, total: performance.now() - started },
  });
  const api = { build: esbuild.build, context: esbuild.context, version: esbuild.version };
  return { esbuild: api, library, typecheck, bundler: new Bundler(api, library), installUnavailable: INSTALL_UNAVAILABLE, now: () => performance.now() };
})();

compiler.catch((error: unknown) => post({ type: 'startup-failed', message: error instanceof Error ? error.message : String(error) }));

async function run(request: Extract<CompilerRequest, { type: 'compile' }>): Promise<void> {
  const started = performance.now();
  try {
    const host = await compiler;
    const fs = new MemoryFileSystem(request.files);
    if (request.mode === 'check') {
      const analysis = await analyzeProject(fs, { library: host.library, typecheck: host.typecheck, installUnavailable: host.installUnavailable, focus: request.focus, now: host.now });
      post({ type: 'result', id: request.id, diagnostics: analysis.diagnostics, timings: { ...analysis.timings, bundle: 0, total: performance.now() - started } });
      return;
    }
    const outcome = await compileProject(fs, host, { focus: request.focus, targets: request.mode === 'preview' ? ['client', 'server'] : undefined });
    const files = outcome.files ? Object.fromEntries(outcome.files) : undefined;
    post(
      { type: 'result', id: request.id, diagnostics: outcome.diagnostics, artifactId: outcome.id, files, timings: { ...outcome.analysis.timings, bundle: outcome.bundleTime, total: performance.now() - started } },
      files ? Object.values(files).map((bytes) => bytes.buffer as ArrayBuffer) : [],
    );
  } catch (error) {
    post({ type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) });
  }
}

let pending: Extract<CompilerRequest, { type: 'compile' }> | undefined;
let running = false;

async function drain(): Promise<void> {
  if (running) return;
  running = true;
  while (pending) {
    const request = pending;
    pending = undefined;
    await run(request);
  }
  running = false;
}

self.addEventListener('message', (event: MessageEvent<CompilerRequest>) => {
  const request = event.data;
  switch (request.type) {
    case 'compile':
      if (pending) post({ type: 'superseded', id: pending.id });
      pending = request;
      void drain();
      break;
    default: {
      const unknown: never = request.type;
      throw new Error(`Unknown compiler request ${String(unknown)}`);
    }
  }
});
