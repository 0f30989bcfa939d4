/** Messages between the playground and the compiler worker. Structured-clone-safe; tagged by `type`. */
import type { ArtifactRecord, KeptTarget } from '../../src/core/build';
import type { Diagnostic } from '../../src/core/diagnostics';
import type { Manifest } from '../../src/core/manifest';
import type { TestEvent } from '../../src/core/testing';

/**
 * `check`: no bundling; `preview`: client and server bundles; `build`: every bundle and the artifact;
 * `test`: what `platform test` runs (the server bundle and each test file that compiles, with source maps).
 */
export type CompileMode = 'check' | 'preview' | 'build' | 'test';

/** A test file's bundle (ESM) and source map, as `prepareTests` gives it. */
export interface TestBundle {
  file: string;
  code: string;
  map: string;
}

export type CompilerRequest =
  | {
      type: 'compile';
      id: number;
      /** Project-relative path → text or bytes. */
      files: Record<string, string | Uint8Array>;
      mode: CompileMode;
      /** A file to type-check first (the one being edited), so its diagnostics are ready soonest. */
      focus?: string;
      /** Bundle without type-checking: for files known to check cleanly (see src/ui/projects/known-good.ts). */
      skipTypecheck?: boolean;
    }
  /**
   * Completions at `offset` in `path`, over the files of the last compile. `files` (project-relative
   * path → text) overrides those files first, typically the edited file's latest text, so the answer
   * matches the document the offset is in. Language requests wait for a running compile to finish; a
   * newer request of the same type supersedes a queued one.
   */
  | { type: 'completions'; id: number; files?: Record<string, string>; path: string; offset: number }
  /** The type and documentation of the symbol at `offset` in `path` (hover). `files` as for completions. */
  | { type: 'quickinfo'; id: number; files?: Record<string, string>; path: string; offset: number }
  /** TypeScript's formatter over `path` (after `files` are applied): the edits to make. */
  | { type: 'format'; id: number; files?: Record<string, string>; path: string }
  /** Drops a queued language request (answered `superseded`); one already answered or running is unaffected. */
  | { type: 'cancel'; id: number }
  /**
   * `platform <args>` by the core's commands over `files` (the terminal without a WebContainer),
   * answered `command-result`. `installUnavailable` replaces the DG1208 reason (the terminal knows why).
   */
  | { type: 'command'; id: number; args: string[]; files: Record<string, string | Uint8Array>; installUnavailable?: string }
  /** The page's answer to `command-tests`: each event of the run, then `command-tests-done`. */
  | { type: 'command-test-event'; id: number; event: TestEvent }
  | { type: 'command-tests-done'; id: number; error?: string };

/** A completion entry: `kind` is TypeScript's ScriptElementKind (`method`, `property`, `const`, …). */
export interface CompletionItem {
  label: string;
  kind: string;
  detail?: string;
  /** TypeScript's relevance: lower sorts first. */
  sortText?: string;
  /** The text to insert when it is not the label (for example `?.name` or a quoted key). */
  insert?: string;
  /** What `insert` replaces, when not the response's `from` to the cursor. */
  range?: { from: number; to: number };
  /** The entry is deprecated (`kindModifiers` holds `deprecated`). */
  deprecated?: boolean;
}

/** A replacement of `from`..`to` (offsets in the text the request was made over) by `insert`. */
export interface TextEdit {
  from: number;
  to: number;
  insert: string;
}

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
  | {
      type: 'result';
      id: number;
      diagnostics: Diagnostic[];
      /** For `build`: the artifact's id and record (what a control plane verifies the files against). */
      artifactId?: string;
      record?: ArtifactRecord;
      files?: Record<string, Uint8Array>;
      tests?: TestBundle[];
      /**
       * For `preview`: this target's outputs are the previous build's, kept (only the other target's
       * files changed since): `client` after a server-only edit, `server` after a client-only one.
       */
      kept?: KeptTarget;
      timings: CompileTimings;
    }
  /** Start-up progress: bytes of esbuild's wasm received (`total` 0 when the size is unknown). */
  | { type: 'progress'; loaded: number; total: number }
  | { type: 'failed'; id: number; message: string }
  /** A newer request replaced this one before it ran. */
  | { type: 'superseded'; id: number }
  | { type: 'startup-failed'; message: string }
  /** Completions replace the text from `from` to the request's offset. */
  | { type: 'completions'; id: number; items: CompletionItem[]; from: number }
  /** No `text` when there is no symbol at the offset; `from`/`to` is the symbol's range. */
  | { type: 'quickinfo'; id: number; text?: string; documentation?: string; from?: number; to?: number }
  | { type: 'format'; id: number; edits: TextEdit[] }
  /** A line a command printed as it ran (`platform test`'s report). */
  | { type: 'command-output'; id: number; text: string }
  /** `platform test` asks the page to run the prepared tests in its sandboxes (only the test named `only`). */
  | { type: 'command-tests'; id: number; manifest: Manifest; serverCode: string; tests: TestBundle[]; only?: string }
  /** What the command printed at its end (empty for `test`, which printed as it went) and its exit status. */
  | { type: 'command-result'; id: number; output: string; exitCode: 0 | 1 | 2 };
