/** Messages between the playground and the compiler worker. Structured-clone-safe; tagged by `type`. */
import type { Diagnostic } from '../../src/core/diagnostics';

/** `check`: no bundling; `preview`: client and server bundles; `build`: every bundle and the artifact. */
export type CompileMode = 'check' | 'preview' | 'build';

export type CompilerRequest =
  | {
      type: 'compile';
      id: number;
      /** Project-relative path → text or bytes. */
      files: Record<string, string | Uint8Array>;
      mode: CompileMode;
      /** A file to type-check first (the one being edited), so its diagnostics are ready soonest. */
      focus?: string;
    };

export interface CompileTimings {
  /** Manifest, graphs, server definition, generated types. */
  analyze: number;
  /** Type-checking the focus file alone (0 without a focus). */
  focusCheck: number;
  /** Type-checking every reachable file (including the focus file). */
  typecheck: number;
  /** esbuild (0 for `check`). */
  bundle: number;
  total: number;
}

export type CompilerResponse =
  | { type: 'ready'; startup: { library: number; esbuild: number; typescript: number; total: number } }
  | { type: 'result'; id: number; diagnostics: Diagnostic[]; artifactId?: string; files?: Record<string, Uint8Array>; timings: CompileTimings }
  | { type: 'failed'; id: number; message: string }
  /** A newer request replaced this one before it ran. */
  | { type: 'superseded'; id: number }
  | { type: 'startup-failed'; message: string };
