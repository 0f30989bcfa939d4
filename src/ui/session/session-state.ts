/**
 * What a project session shows (`SessionState`) and what its parts share: the state they update, the
 * event log, the runtime they drive and the compiler they call (declared here so the parts, the
 * session and the tests' in-memory implementations agree on one shape).
 */
import type { Diagnostic } from '../../core/diagnostics';
import type { DevEvent, DevEventPayload } from '../../core/local';
import type { Manifest } from '../../core/manifest';
import type { CompileResult, CompilerClient } from '../compiler-client';
import type { Project } from '../projects/store';
import type { InspectAnswer, InspectQuery } from '../../../worker/protocol/runtime';
import type { Commit, CommittedState } from '../runtime/durable-log';
import type { NumberedGeneration } from './generation';

/** An event of the session's log: one of the `platform.dev.v0` events (core/local/events.ts), with when it came (ms since the epoch). */
export type SessionEvent = DevEvent & { at: number };

export interface SessionState {
  project: Project;
  compile: 'loading' | 'compiling' | 'ready' | 'failed';
  diagnostics: Diagnostic[];
  /**
   * Whether the type check of the current build's files ran: false from the session's start until its
   * first build (bundled before it is checked) has been checked, so nothing says "no problems" before.
   */
  checked: boolean;
  /** The session's first build, previewed before its type check, was taken down: the check found errors. */
  takenDown?: boolean;
  /** The generation the previews show (the last good one when the latest failed). */
  generation?: NumberedGeneration;
  /** True when the shown generation is older than the latest edit because that failed to build. */
  stale: boolean;
  /**
   * When the shown generation is the last good build of an earlier session (this session has built
   * nothing good yet: it is shown at once while the first build is made, and kept when that fails):
   * when that build was saved. Cleared by the next good build.
   */
  restoredFrom?: number;
  events: SessionEvent[];
  timings?: CompileResult['timings'];
  /** When "Reset data" last kept a copy of the data it dropped (restorable). */
  recovery?: { savedAt: number };
  /** A message about the project's data (an import from a share link, a restore), until dismissed. */
  notice?: SessionNotice;
  /** The last deletion of a file or folder, which `undoDelete` brings back, until dismissed or undone. */
  deleted?: { name: string; files: number };
}

export interface SessionNotice {
  tone: 'info' | 'error';
  message: string;
  /** A diagnostic code (DG1824) and its detail.code, when the notice reports one. */
  code?: string;
  detailCode?: string;
}

/** What the session's parts share: its state, which they change by patches, and its event log. */
export interface SessionContext {
  readonly state: SessionState;
  update(patch: Partial<SessionState>): void;
  log<K extends DevEvent['kind']>(kind: K, fields: DevEventPayload<K>): void;
  /** The same, for an event made whole (the compile loop's). */
  record(event: DevEvent): void;
}

export type { InspectAnswer };

/** The runtime the session drives (RuntimeHost implements it). */
export interface SessionRuntime {
  start(app: { manifest: Manifest; serverCode: string; state?: CommittedState; env?: Record<string, string> }): Promise<void>;
  /** Journal batches (answers wait for what the listener returns) and checkpoints. */
  onCommit(listener: (commit: Commit) => void | Promise<void>): () => void;
  /** Hands over commits not sent yet; with `checkpoint`, as a checkpoint of the whole database. */
  flush(options?: { checkpoint?: boolean }): Promise<void>;
  readonly committedState: CommittedState | undefined;
  /** 'running' while the last start succeeded and the sandbox is up. */
  readonly phase: string;
  inspect<K extends InspectQuery['kind']>(query: Extract<InspectQuery, { kind: K }>): Promise<InspectAnswer<K>>;
}

/** The compiler the session builds with (CompilerClient implements it). */
export type SessionCompiler = Pick<CompilerClient, 'compile'>;

