/// <reference lib="webworker" />
/**
 * The bundler worker, started by the compiler worker: esbuild-wasm with a long-lived `Bundler`, so the
 * preview's bundle is made while the compiler worker type-checks the same files (esbuild's plugin
 * reads the files on the thread that runs it, which would otherwise be the type checker's). Like the
 * compiler worker it runs only the compiler; the app's code is bundled here, never executed.
 */
import * as esbuild from 'esbuild-wasm';
import embedded from 'virtual:platform-library/modules';
import { Bundler, answerBundle } from '../src/core/bundle';
import { embeddedLibrary } from '../src/core/project';
import type { BundlerRequest, BundlerResponse } from './protocol/bundler';

declare const self: DedicatedWorkerGlobalScope;

function post(message: BundlerResponse): void {
  self.postMessage(message);
}

let bundler: Promise<Bundler> | undefined;

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
  // The project's files come with the request: the playground holds them in memory.
  void answerBundle(bundler, request, () => {
    throw new Error('The bundler worker bundles projects held in memory.');
  }).then(post);
};
