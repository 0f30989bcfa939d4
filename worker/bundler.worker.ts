/// <reference lib="webworker" />
/**
 * The bundler worker, started by the compiler worker: esbuild-wasm with a long-lived `Bundler`, so the
 * preview's bundle is made while the compiler worker type-checks the same files (esbuild's plugin
 * reads the files on the thread that runs it, which would otherwise be the type checker's). Like the
 * compiler worker it runs only the compiler; the app's code is bundled here, never executed.
 */
import * as esbuild from 'esbuild-wasm';
import embedded from 'virtual:platform-library/modules';
import { Bundler } from '../src/core/build/bundle';
import { embeddedLibrary } from '../src/core/build/library';
import { answerBundle } from '../src/core/build/remote-bundler';
import { installZeroDelayTimers } from '../src/ui/zero-delay-timers';
import type { BundlerRequest, BundlerResponse } from './protocol/bundler';

declare const self: DedicatedWorkerGlobalScope;

// esbuild (run on this thread) hands each plugin answer to its Go side with a zero-delay timer: unclamped
// here, a bundle of hundreds of modules no longer waits 4 ms per answer (src/ui/zero-delay-timers.ts).
installZeroDelayTimers(self);

function post(message: BundlerResponse): void {
  self.postMessage(message);
}

let bundler: Promise<Bundler> | undefined;
/** The bundle being made: the next one waits for it. */
let queue: Promise<unknown> = Promise.resolve();

self.onmessage = (event: MessageEvent<BundlerRequest>) => {
  const request = event.data;
  if (request.type === 'init') {
    bundler ??= esbuild.initialize({ wasmModule: request.wasmModule, worker: false }).then(() => {
      return new Bundler({ build: esbuild.build, context: esbuild.context, version: esbuild.version }, embeddedLibrary(embedded));
    });
    bundler.then(
      () => post({ type: 'ready' }),
      (error: unknown) => post({ type: 'startup-failed', message: error instanceof Error ? error.message : String(error) }),
    );
    return;
  }
  if (!bundler) {
    post({ type: 'failed', id: request.id, message: 'The bundler was asked to bundle before it was given esbuild.' });
    return;
  }
  // The project's files come with the request: the playground holds them in memory. One bundle at a
  // time: a Bundler's contexts take each build's files in turn (the compiler's warm-up bundle, then
  // the build of the same files, which is then incremental).
  const ready = bundler;
  const answered = queue.then(() =>
    answerBundle(ready, request, () => {
      throw new Error('The bundler worker bundles projects held in memory.');
    }),
  );
  queue = answered;
  void answered.then(post);
};
