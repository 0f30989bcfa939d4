/** Messages between the compiler worker and its bundler worker. Structured-clone-safe; tagged by `type`. */
import type { BundleAnswer, BundleRequest } from '../../src/core/bundle';

export type BundlerRequest =
  /** esbuild's wasm, compiled once by the compiler worker (it streams it in with progress). */
  | { type: 'init'; wasmModule: WebAssembly.Module }
  /** A bundle of a project whose files are sent along (`source.files`). */
  | BundleRequest;

export type BundlerResponse = { type: 'ready' } | { type: 'startup-failed'; message: string } | BundleAnswer;
