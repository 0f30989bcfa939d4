#!/usr/bin/env node
// The `platform` command. Runs the prebuilt CLI (build/cli/, made by `npm install`'s prepare step,
// `npm run build:cli` and the test setups; see scripts/build-cli.ts) while none of the sources it was
// built from has changed since. Otherwise, or with PLATFORM_CLI_SOURCES=1, it runs the TypeScript
// sources through tsx: slower to start, never stale.
//
// The commands that type-check run the prebuilt CLI in a child process started from its start-up
// snapshot, where TypeScript is loaded and its libraries are parsed and bound already (PLATFORM_CLI_SNAPSHOT=0
// turns that off). This process only waits for it: it passes on SIGTERM and SIGHUP (Ctrl-C reaches the
// child from the terminal itself), exits as the child did, and the child stops when this process is gone.
// A Node that refuses the snapshot as it starts (exit status 14) runs the command here instead.
//
// `check` goes first to a check server, a process kept from an earlier check (bin/check-server.mjs), where
// one may serve; this process then only passes on its answer.
import { spawn } from 'node:child_process';
import { installCrashHandler } from './crash.mjs';
import { prebuiltEntry, snapshotArgs, snapshotEnv } from './prebuilt.mjs';
import { checkThroughServer } from './check-server.mjs';

const SNAPSHOT_COMMANDS = new Set(['check', 'build', 'test', 'dev', 'deploy']);
/** Node's exit status for a start-up snapshot it could not load (ExitCode::kStartupSnapshotFailure). */
const SNAPSHOT_REFUSED = 14;

const root = new URL('../', import.meta.url);
const args = process.argv.slice(2);
// Before anything else loads: a crash from here on (even loading the CLI) is DG0000 on stderr.
installCrashHandler(args);
const entry = process.env.PLATFORM_CLI_SOURCES === '1' ? undefined : prebuiltEntry(root);

async function runHere() {
  let url = entry;
  if (!url) {
    const { register } = await import('tsx/esm/api');
    register();
    url = new URL('src/cli/main.ts', root);
  }
  const { runProcess } = await import(url.href);
  await runProcess(args);
}

// A check a check server answers (bin/check-server.mjs): no process of its own is started.
const served = entry && args[0] === 'check' ? await checkThroughServer(root, args) : undefined;
const fromSnapshot = served === undefined && entry && SNAPSHOT_COMMANDS.has(args[0]) && process.env.PLATFORM_CLI_SNAPSHOT !== '0' ? snapshotArgs(root) : undefined;
if (served !== undefined) {
  process.exitCode = served;
} else if (fromSnapshot) {
  const child = spawn(process.execPath, [...fromSnapshot, ...args], { stdio: ['inherit', 'inherit', 'inherit', 'ipc'], env: snapshotEnv(process.env) });
  const pass = (signal) => child.kill(signal);
  const ignore = () => {};
  process.on('SIGTERM', pass);
  process.on('SIGHUP', pass);
  process.on('SIGINT', ignore);
  child.once('exit', (code, signal) => {
    process.off('SIGTERM', pass);
    process.off('SIGHUP', pass);
    process.off('SIGINT', ignore);
    if (code === SNAPSHOT_REFUSED) return void runHere();
    if (signal) process.kill(process.pid, signal);
    process.exit(code ?? 1);
  });
} else {
  await runHere();
}
