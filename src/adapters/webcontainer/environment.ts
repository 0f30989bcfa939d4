/**
 * A Node.js environment in the tab, as the terminal and the compiler see it: one interface, so the
 * WebContainer stays an optional adapter behind it and tests can give an in-memory container.
 */
import type { ProjectFiles } from './file-tree';

/** Why no WebContainer is available: each has a sentence the terminal shows as it is. */
export type UnavailableReason =
  | { kind: 'not-isolated' }
  | { kind: 'no-shared-memory' }
  | { kind: 'offline' }
  | { kind: 'unreachable'; origin: string }
  | { kind: 'timeout'; afterMs: number }
  | { kind: 'boot-failed'; message: string };

export type EnvironmentStatus =
  | { state: 'idle' }
  | { state: 'booting' }
  | { state: 'ready' }
  | { state: 'unavailable'; reason: UnavailableReason };

/** The sentence after "WebContainer unavailable: ". */
export function describeUnavailable(reason: UnavailableReason): string {
  switch (reason.kind) {
    case 'not-isolated':
      return 'this page is not cross-origin isolated (it needs the headers Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: credentialless)';
    case 'no-shared-memory':
      return 'this browser has no SharedArrayBuffer';
    case 'offline':
      return 'the browser is offline, and WebContainers are served by StackBlitz';
    case 'unreachable':
      return `${reason.origin}, which serves WebContainers, cannot be reached from this page (offline, or blocked)`;
    case 'timeout':
      return `boot timed out after ${Math.round(reason.afterMs / 1000)} s (offline, or StackBlitz unreachable?)`;
    case 'boot-failed':
      return `boot failed: ${reason.message}`;
    default: {
      const unknown: never = reason;
      return String(unknown);
    }
  }
}

/** A process in the environment: its output as it comes (terminal text, ANSI included) and its exit code. */
export interface NodeProcess {
  output: ReadableStream<string>;
  exit: Promise<number>;
  /** Types into the process's standard input. */
  write(data: string): Promise<void>;
  kill(): void;
}

export interface SpawnOptions {
  /** Project-relative; the project root by default. */
  cwd?: string;
  /** The terminal's size, so the process can lay out its output. */
  terminal?: { cols: number; rows: number };
}

export interface NodeEnvironment {
  readonly status: EnvironmentStatus;
  /** Called on every status change; returns the unsubscribe function. */
  onStatus(listener: (status: EnvironmentStatus) => void): () => void;
  /** Boots once per page. Never rejects: resolves `ready` or `unavailable` with the reason. */
  boot(): Promise<EnvironmentStatus>;
  /** Brings the container's copy of the project (at its working directory) to exactly these files. */
  mount(files: ProjectFiles): Promise<void>;
  /** Runs a command in the project. Only when `ready`. */
  spawn(command: string, args: readonly string[], options?: SpawnOptions): Promise<NodeProcess>;
  /** `platform <args>`: the real CLI (the toolchain bundle, prepared on first use) over the mounted project. */
  platform(args: readonly string[], options?: SpawnOptions & { onSetup?(text: string): void }): Promise<NodeProcess>;
  /**
   * `npm install` of the project's package.json dependencies, when it declares any (undefined when it
   * declares none). Then `nodeModules()` gives the compiler the installed packages.
   */
  installDependencies(options?: SpawnOptions): Promise<NodeProcess | undefined>;
  /** The project's installed `node_modules` as project files (`node_modules/<name>/…`), for the compiler worker. */
  nodeModules(): Promise<Record<string, Uint8Array>>;
  /** Called when a process in the environment starts listening (`platform dev`): the URL the page can open. */
  onServerReady(listener: (port: number, url: string) => void): () => void;
  dispose(): void;
}
