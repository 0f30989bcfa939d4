/** What a host (the Node CLI) gives `platform dev` and `preview`: a server on loopback, a file watcher, processes. */
import type { Compiler, ProjectAnalyzer } from '../build/index.ts';
import type { ProjectBundler } from '../bundle/index.ts';
import type { Generation } from '../generation/index.ts';
import type { CallRecord } from '../deploy/index.ts';
import type { ProcessAlive } from './discovery.ts';
import type { LocalMode } from './paths.ts';

export type PromoteOutcome =
  | { ok: true; restarted: boolean }
  /**
   * The runtime could not start on the generation. `previous`: `kept` when the previous one never
   * stopped (the new server side failed before it had to), `restarted` when it was started again,
   * `stopped` when nothing serves.
   */
  | { ok: false; code: string; message: string; previous: 'kept' | 'restarted' | 'stopped'; hint?: string; detail?: Record<string, unknown> };

export interface LocalServerOptions {
  /** The project directory, absolute. */
  root: string;
  mode: LocalMode;
  host: string;
  port: number;
  /** `ctx.env`, asked again whenever the runtime starts. Who visitors are is read from `.platform/persona.json` on each request. */
  env(): Record<string, string>;
  /** Each call the app served, with its error and console lines (the dev stream prints them). */
  onCall?(call: CallRecord): void;
}

export interface LocalServer {
  readonly url: string;
  /** The secret the server's admin route takes (published in its discovery record). */
  readonly adminSecret: string;
  /** Serves a generation; the runtime restarts only when its server side differs from what serves. */
  promote(generation: Generation): Promise<PromoteOutcome>;
  /**
   * Makes the engine for a generation ahead of its promotion, while its types are checked, so the
   * promotion finds it running: started whole while nothing serves, only launched (the app not yet on
   * its data) while another engine serves. A promotion of another server side ends it.
   */
  prestart?(generation: Generation): void;
  /** Ends an engine started ahead for a generation that will not be promoted (its build failed). */
  abandonPrestart?(): Promise<void>;
  close(): Promise<void>;
}

/** The dev loop's bundler: one that can move its work off the command's thread once the first generation serves. */
export interface DevBundler extends ProjectBundler {
  /** Starts bundling elsewhere (Node: a worker thread), warmed on the last project bundled; the dev loop does not wait for it. */
  moveOffThread?(): Promise<void>;
}

/**
 * The dev loop's analyzer: on the command's thread, with the compiler's session, until it can move its
 * type checks elsewhere (Node: a worker thread) once the first generation serves.
 */
export interface DevAnalyzer extends ProjectAnalyzer {
  /** Starts checking elsewhere, warmed on the last project analysed; the dev loop does not wait for it. */
  moveOffThread?(): Promise<void>;
  dispose(): Promise<void>;
}

/** Paths that changed under the project, project-relative POSIX. */
export type ChangeListener = (paths: string[]) => void;

export interface LocalHost {
  /** Rows per page of a streamed export and per batch of a streamed import (the CLI: PLATFORM_STATE_PAGE_ROWS; default EXPORT_PAGE_ROWS). */
  transferRows?: number;
  /** This process's id, for discovery records. */
  pid: number;
  processAlive: ProcessAlive;
  now(): number;
  /** Listens on host:port (0 picks a port). Rejects when it cannot listen. */
  listen(options: LocalServerOptions): Promise<LocalServer>;
  /** Watches the project's files (not `.platform/`, `node_modules/`, `.git/`); a string says why it cannot. */
  watch(root: string, onChange: ChangeListener): { close(): void } | string;
  /** The dev loop's bundler; without it, one on this thread (made by the dev session). */
  bundler?(compiler: Pick<Compiler, 'esbuild' | 'library'>): DevBundler;
  /** The dev loop's analyzer (its type checks); without it, they run on this thread with the compiler's session. */
  analyzer?(compiler: Compiler): DevAnalyzer;
  /** The absolute path of a project directory named on the command line. */
  resolve(directory: string): string;
  /** Resolves when the process is asked to stop (Ctrl-C, SIGTERM). */
  stopped(): Promise<string>;
  /** Whether a project path is a symbolic link. */
  isLink?(root: string, path: string): Promise<boolean>;
  /** Removes a file of the project (a discovery record on a clean stop); nothing when it is not there. */
  removeFile(root: string, path: string): Promise<void>;
  /**
   * Local state on disk (`state reset`): moves a state directory to a recovery directory (one rename),
   * refusing (DG1813) when either path is or passes through a link, `.platform/` included.
   */
  resetState(root: string, state: string, recovery: string): Promise<{ ok: true; copied: boolean } | { ok: false; code: 'DG1813' | 'DG1814'; message: string }>;
}
