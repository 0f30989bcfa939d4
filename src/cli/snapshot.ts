/**
 * The entry of the CLI's start-up snapshot (scripts/build-cli.ts bundles it into one script and runs
 * `node --build-snapshot` on it). Building it loads TypeScript and analyzes each template as `platform
 * check` would (prepareLibraryFiles), so the heap the snapshot keeps holds the library's files parsed and
 * bound, and TypeScript's checker and declaration emitter compiled. A process started from the snapshot
 * runs the script named first in its arguments (the prebuilt CLI's launcher) with the rest, as
 * `node script args` would.
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { startupSnapshot as v8Snapshot } from 'node:v8';
import ts from 'typescript';
import { prepareLibraryFiles } from '../adapters/node/prepare-library';
import { STARTUP_SNAPSHOT_KEY, type StartupSnapshot } from '../adapters/node/startup-snapshot';

void prepareLibraryFiles().then((prepared) => {
  (globalThis as Record<symbol, StartupSnapshot>)[Symbol.for(STARTUP_SNAPSHOT_KEY)] = { ts, prepared };
  v8Snapshot.setDeserializeMainFunction(() => {
    const script = resolve(process.argv[1]!);
    process.argv.splice(1, 1, script);
    createRequire(script)(script);
  });
});
