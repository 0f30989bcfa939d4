/**
 * For tests: the one way they run the `platform` CLI, either as people run it (a child process of
 * bin/platform.mjs, or of a launcher such as bin/platform), with its output collected, or in this
 * process through `main` with its output captured. Every variant answers the same `CliRun`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { CliIo } from '../cli/node-host';

/** The checkout's root. */
export const ROOT = join(import.meta.dirname, '../..');
/** The Node entry of the CLI: run with this Node. */
export const PLATFORM_MJS = join(ROOT, 'bin/platform.mjs');
/** The CLI as installed (a POSIX shell launcher): run directly. */
export const PLATFORM_LAUNCHER = join(ROOT, 'bin/platform');

/** How a CLI process ended and what it wrote. `code` is null when a signal ended it. */
export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The working directory; default: this process's. */
  cwd?: string;
  /** Added to this process's environment, or the whole environment with `inheritEnv: false`. */
  env?: Record<string, string | undefined>;
  /** False: the child gets `env` alone, none of this process's variables. Default true. */
  inheritEnv?: boolean;
  /**
   * What to run: a `.mjs` file is given to this Node (default: bin/platform.mjs), anything else is
   * executed itself (bin/platform, a copy of it, a link to it).
   */
  bin?: string;
  /** Written to the child's stdin, which is then closed; without it stdin is empty. */
  input?: string;
  /** A child still running after this long is sent SIGTERM (as execFile's `timeout`); its run then has `signal` set. */
  timeoutMs?: number;
}

/** The command and arguments that run `platform <args>` with `bin` (see CliOptions.bin). */
export function cliCommand(args: readonly string[], bin = PLATFORM_MJS): { command: string; args: string[] } {
  return bin.endsWith('.mjs') ? { command: process.execPath, args: [bin, ...args] } : { command: bin, args: [...args] };
}

function environment(options: CliOptions): NodeJS.ProcessEnv {
  return options.inheritEnv === false ? { ...options.env } : { ...process.env, ...options.env };
}

/** Collects a child's stdout and stderr as text; `ended` resolves once it exited and its output is read. */
export function collect(child: ChildProcess): { output: { stdout: string; stderr: string }; ended: Promise<CliRun> } {
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  let closed = false;
  child.once('close', () => (closed = true));
  const ended = new Promise<CliRun>((resolve) =>
    child.once('exit', (code, signal) => {
      const settle = () => resolve({ code, signal, ...output });
      if (closed) return settle();
      // Its output is all read once its pipes close; not waited for long when a process it started keeps them
      // open (the tests that look for processes left behind look 50 ms after the exit, no later).
      const limit = setTimeout(settle, 50);
      child.once('close', () => {
        clearTimeout(limit);
        settle();
      });
    }),
  );
  return { output, ended };
}

/** A CLI process left running (`platform dev`, `tunnel`): the child, its output so far, and how it ended. */
export interface CliProcess {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  ended: Promise<CliRun>;
}

/** Starts `platform <args>` as a child process, stdout and stderr piped; `detached` gives it its own process group. */
export function startCli(args: readonly string[], options: CliOptions & { detached?: boolean } = {}): CliProcess {
  const { command, args: argv } = cliCommand(args, options.bin);
  const child = spawn(command, argv, {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: environment(options),
    detached: options.detached ?? false,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.input !== undefined) child.stdin!.end(options.input);
  const { output, ended } = collect(child);
  if (options.timeoutMs !== undefined) {
    const limit = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs);
    void ended.then(() => clearTimeout(limit));
  }
  return { child, output, ended };
}

/** Runs `platform <args>` as a child process to its end. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  return startCli(args, options).ended;
}

/** Runs `platform <args>` as a child process to its end, synchronously. */
export function runCliSync(args: readonly string[], options: CliOptions = {}): CliRun {
  const { command, args: argv } = cliCommand(args, options.bin);
  const result = spawnSync(command, argv, {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: environment(options),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...(options.input === undefined ? { stdio: ['ignore', 'pipe', 'pipe'] } : { input: options.input }),
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  });
  if (result.error) throw result.error;
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

/** The run, when it exited 0; otherwise an error with its status and stderr (as execFile and execFileSync fail). */
export function succeeded<Run extends CliRun>(run: Run): Run {
  if (run.code !== 0) throw new Error(`platform exited ${run.code ?? run.signal}: ${run.stderr}`);
  return run;
}

/** The JSON a run printed on stdout (a `--json` envelope). */
export function envelopeOf<T = any>(run: { stdout: string }): T {
  return JSON.parse(run.stdout) as T;
}

/** In-process options: the CLI's own io, without the streams (captured), and a listener for stderr as it comes. */
export type InProcessOptions = Omit<CliIo, 'stdout' | 'stderr'> & { onStderr?: (text: string) => void };

/**
 * Runs `platform <args>` in this process through `main` (quicker than a process; what a test can
 * inject: a compiler, an environment, a fetch to an in-process control plane, a check-cache key).
 */
export async function runInProcess(args: readonly string[], options: InProcessOptions): Promise<{ code: number; stdout: string; stderr: string }> {
  // Loaded when used: a test that only starts processes does not load the CLI's modules.
  const { main } = await import('../cli/main');
  const { onStderr, ...io } = options;
  let stdout = '';
  let stderr = '';
  const code = await main([...args], {
    ...io,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: {
      write: (text: string) => {
        stderr += text;
        onStderr?.(text);
      },
    },
  });
  return { code, stdout, stderr };
}
