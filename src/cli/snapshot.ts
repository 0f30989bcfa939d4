/**
 * The entry of the CLI's start-up snapshot (scripts/build-cli.ts bundles it into one script and runs
 * `node --build-snapshot` on it). Building it loads TypeScript and analyzes each template as `platform
 * check` would (prepareLibraryFiles), so the heap the snapshot keeps holds the library's files parsed and
 * bound, and TypeScript's checker and declaration emitter compiled. It holds the CLI itself too, so
 * `check` and `build` load no module as they start.
 *
 * A process started from the snapshot (`node --snapshot-blob startup.blob launch.cjs args…`, by bin/platform
 * or bin/platform.mjs) runs `check` and `build` with the CLI bundled here, or the sources when one changed
 * since the build; every other command through the launcher, the prebuilt CLI's modules (`launch.cjs`), as
 * `node launch.cjs args…` would; and, with PLATFORM_CHECK_SERVE set, the check server (check-server.ts).
 * Packages the bundle leaves out (esbuild, fflate, workerd, the MCP SDK, the HTTP server; see
 * scripts/build-cli.ts) are required from the checkout when first used.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startupSnapshot as v8Snapshot } from 'node:v8';
import ts from 'typescript';
import { prebuiltEntry } from '../../bin/prebuilt.mjs';
import { SERVE_VARIABLE } from '../../bin/check-server.mjs';
import { serveChecks } from './check-server';
import { nodeLibrary } from '../adapters/node/library';
import { prepareLibraryFiles } from '../adapters/node/prepare-library';
import { RUNTIME_REQUIRE_KEY, STARTUP_SNAPSHOT_KEY, type StartupSnapshot } from '../adapters/node/startup-snapshot';
import { installCrashHandler } from '../../bin/crash.mjs';
import { libraryDigest } from './check-cache';
import { runProcess } from './main';

/** The commands the bundled CLI runs: those that only read, type-check, bundle and write files. */
const BUNDLED_COMMANDS = new Set(['check', 'build']);

/** The checkout the snapshot was built in (the bundle's banner, scripts/build-cli.ts). */
declare const __checkoutRoot: string;

void prepareLibraryFiles().then((prepared) => {
  // Digested now, so a `check` answered from the project's kept answer (check-cache.ts) does not read the library.
  libraryDigest(nodeLibrary());
  const global = globalThis as Record<symbol, unknown>;
  global[Symbol.for(STARTUP_SNAPSHOT_KEY)] = { ts, prepared } satisfies StartupSnapshot;
  v8Snapshot.setDeserializeMainFunction(() => {
    // The IPC channel to bin/platform.mjs holds nothing open; when that process is gone, this one stops as on SIGTERM.
    if (process.channel) {
      process.channel.unref();
      process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
    }
    const script = resolve(process.argv[1]!);
    process.argv.splice(1, 1, script);
    const args = process.argv.slice(2);
    const serve = process.env[SERVE_VARIABLE];
    if (serve) {
      // A check server (bin/check-server.mjs started it): its output goes nowhere, a crash ends it and its clients check themselves.
      global[Symbol.for(RUNTIME_REQUIRE_KEY)] = createRequire(join(__checkoutRoot, 'package.json'));
      return void serveChecks(serve, __checkoutRoot, async () => (await import('../adapters/node/compiler')).nodeCompiler());
    }
    // The launcher's commands too: a crash is DG0000 on stderr (bin/crash.mjs).
    installCrashHandler(args);
    if (!BUNDLED_COMMANDS.has(args[0]!)) return void createRequire(script)(script);
    if (!prebuiltEntry(pathToFileURL(`${__checkoutRoot}/`))) {
      // A source changed since the CLI was built (bin/platform starts this process without looking):
      // the Node entry runs the sources.
      const sources = spawnSync(process.execPath, [join(__checkoutRoot, 'bin/platform.mjs'), ...args], { stdio: 'inherit' });
      return void (process.exitCode = sources.status ?? 1);
    }
    global[Symbol.for(RUNTIME_REQUIRE_KEY)] = createRequire(join(__checkoutRoot, 'package.json'));
    void runProcess(args);
  });
});
