/** Messages between the compiler worker and its bundler worker. Structured-clone-safe; tagged by `type`. */
import type { Project } from '../../src/core/analyze/project';
import type { BuildTarget, BundleResult } from '../../src/core/build/bundle';

export type BundlerRequest =
  /** esbuild's wasm, compiled once by the compiler worker (it streams it in with progress). */
  | { type: 'init'; wasmModule: WebAssembly.Module }
  | {
      type: 'bundle';
      id: number;
      /** The project's files (project-relative path → text or bytes) and what the analysis found of it. */
      files: Array<[string, string | Uint8Array]>;
      project: Omit<Project, 'fs'>;
      targets: readonly BuildTarget[];
    };

export type BundlerResponse =
  | { type: 'ready' }
  | { type: 'startup-failed'; message: string }
  | { type: 'bundled'; id: number; result: BundleResult }
  | { type: 'failed'; id: number; message: string };
