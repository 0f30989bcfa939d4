/** The Node entry of the `platform` command: runs the core's command line over the real file system. */
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runCommandLine } from '../core/commands';
import { NodeFileSystem } from '../adapters/node/node-file-system';
import type { KeptResultsSession } from '../adapters/node/compiler';
import { type CliIo, nodeHost } from './node-host';
import { crashReport, CRASH_STATUS, installCrashHandler } from '../../bin/crash.mjs';
import { buildCheckCacheKey, checkDirectory, keepAnswer, readKept, RecordingFileSystem } from './check-cache';

const processIo = (): CliIo => ({ cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });

/**
 * Runs the CLI and returns its exit status. A crash, even before the command starts (a working directory
 * deleted under it: process.cwd() throws), is DG0000 on stderr, the one code outside an envelope, through
 * the CLI's one crash handler (bin/crash.mjs).
 */
export async function main(args: string[], io?: CliIo): Promise<number> {
  try {
    const cli = io ?? processIo();
    const directory = checkDirectory(args);
    // A compiler given by the caller is not the build's: its answers are not kept unless a key is given too.
    const signing = directory === undefined ? undefined : cli.checkCache === undefined ? (cli.compiler ? undefined : buildCheckCacheKey()) : cli.checkCache || undefined;
    if (directory !== undefined && signing) return await keptCheck(args, cli, directory, signing);
    const result = await runCommandLine(args, nodeHost(cli));
    if (result.output) cli.stdout.write(`${result.output}\n`);
    return result.exitCode;
  } catch (error) {
    (io?.stderr ?? process.stderr).write(crashReport(error, args, io?.env ?? process.env));
    return CRASH_STATUS;
  }
}

/**
 * `check`, answered from the project's kept answer when nothing it read changed since (check-cache.ts);
 * else checked, its reads recorded, and its answer kept, with the type checker's per-file results: a
 * check after an edit takes those of the files the edit cannot reach (KeptResultsSession). A check that
 * wrote to stderr keeps nothing.
 */
async function keptCheck(args: string[], cli: CliIo, directory: string, { key, identity }: { key: Uint8Array; identity: string }): Promise<number> {
  const fs = new NodeFileSystem(resolve(cli.cwd, directory));
  const kept = await readKept(fs, fs.root, args, key, identity);
  if (kept.answer) {
    if (kept.answer.output) cli.stdout.write(`${kept.answer.output}\n`);
    return kept.answer.exitCode;
  }
  const recorded = new RecordingFileSystem(fs);
  let spoke = false;
  const stderr = { write: (text: string) => ((spoke = true), cli.stderr.write(text)) };
  const host = nodeHost({ ...cli, stderr });
  const compiler = await host.compiler();
  // The Node compiler's session (compiler.ts, loaded lazily: --help loads no TypeScript); a caller's may be another.
  const session = 'adopt' in compiler.typecheck ? (compiler.typecheck as KeptResultsSession) : undefined;
  session?.adopt(kept.results);
  const result = await runCommandLine(args, { ...host, compiler: async () => compiler, project: (path) => (path === directory ? recorded : host.project(path)) });
  if (result.output) cli.stdout.write(`${result.output}\n`);
  if (!spoke) await keepAnswer(fs, fs.root, recorded, args, key, identity, { output: result.output, exitCode: result.exitCode }, session?.keptResults() ?? null);
  return result.exitCode;
}

/**
 * Commands that stream a state document (import, export, `inspect --view export`). Each row they read
 * or write is parsed or made, batched and sent, then dropped: a high rate of short-lived allocation,
 * which V8 answers by growing its heap, so the process's resident memory grew with the rows moved (113
 * to 189 MB from 10k to 1M rows) while its live heap stayed near 15 MB. V8's size-first heap policy
 * (`--optimize-for-size`, which may be set once the process runs) collects before the heap grows: the
 * memory stays flat for a few percent more time (`npx tsx bench/run.ts transfer`).
 */
const TRANSFER_COMMANDS = new Set(['import', 'export', 'inspect']);

/** A process's run of the CLI (every entry: bin/platform.mjs, the start-up snapshot's): the crash handler installed, then main; the exit status set. */
export async function runProcess(args: string[]): Promise<void> {
  installCrashHandler(args);
  if (TRANSFER_COMMANDS.has(args[0]!)) setFlagsFromString('--optimize-for-size');
  process.exitCode = await main(args);
}
