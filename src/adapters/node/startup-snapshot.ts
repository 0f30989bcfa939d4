/**
 * The CLI's start-up snapshot, seen from inside a process started from it (scripts/build-cli.ts builds it,
 * bin/platform.mjs starts the commands that type-check from it): TypeScript already loaded, and the
 * library's files parsed and bound. Absent in a process started the ordinary way.
 */
import type ts from 'typescript';
import type { PreparedFiles } from '../../core/analyze/index.ts';

/** The global the snapshot sets (`Symbol.for` of it); the prebuilt CLI's lazy TypeScript reads it too. */
export const STARTUP_SNAPSHOT_KEY = 'platform.cli.startup-snapshot';

export interface StartupSnapshot {
  /** The TypeScript module the snapshot loaded: the one the prepared files belong to. */
  ts: typeof ts;
  prepared: PreparedFiles;
}

export function startupSnapshot(): StartupSnapshot | undefined {
  return (globalThis as Record<symbol, StartupSnapshot | undefined>)[Symbol.for(STARTUP_SNAPSHOT_KEY)];
}

/**
 * The global holding the `require` a process started from the snapshot loads the packages the snapshot's
 * bundle leaves out with (scripts/build-cli.ts): Node's, made for the checkout as the process starts.
 */
export const RUNTIME_REQUIRE_KEY = 'platform.cli.runtime-require';
