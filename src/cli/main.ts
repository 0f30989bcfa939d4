/** The Node entry of the `platform` command: runs the core's command line over the real file system. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runCommandLine, type CommandHost } from '../core/commands';
import { stoppable } from '../core/host';
import { NodeFileSystem } from '../adapters/node/node-file-system';
import { nodeLocalHost } from '../adapters/node/local-host';
import type { Compiler } from '../core/build';
import type { KeptResultsSession } from '../adapters/node/compiler';
import type { ControlPlaneHost } from '../core/deploy';
import { FileCredentialStore, configDir } from '../adapters/node/credentials';
import { crashReport, CRASH_STATUS, installCrashHandler } from '../../bin/crash.mjs';
import { buildCheckCacheKey, checkDirectory, keepAnswer, readKept, RecordingFileSystem } from './check-cache';

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

export interface CliIo {
  cwd: string;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** The compiler to use; by default one is made on first use. Tests share one across invocations. */
  compiler?: () => Promise<Compiler>;
  /** The environment (PLATFORM_SERVICE_TOKEN, PLATFORM_CONTROL_URL, PLATFORM_CONFIG_DIR); default: the process's. */
  env?: Record<string, string | undefined>;
  /** How requests reach a control plane; default: Node's fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * What `check`'s kept answers are signed with (check-cache.ts): by default this build's key, none when
   * the CLI's build is not current; false keeps and uses none. Tests give a key of their own.
   */
  checkCache?: { key: Uint8Array; identity: string } | false;
}

/** Connection errors of a request sent on a kept-alive connection the server had just closed (its idle timeout). */
const DROPPED = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']);

/**
 * Node's fetch, with one more try for a request that can be repeated (GET, HEAD) when the connection
 * it was sent on had just been closed by the server: a pooled connection idle past the server's
 * keep-alive timeout is reset as it is reused, which says nothing about the server.
 */
async function nodeFetch(request: Request): Promise<Response> {
  const again = request.method === 'GET' || request.method === 'HEAD' ? request.clone() : undefined;
  try {
    return await fetch(request);
  } catch (error) {
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    if (again && typeof code === 'string' && DROPPED.has(code)) return fetch(again);
    throw error;
  }
}

/** The control plane access of the CLI: Node's fetch, the environment, credentials under the config dir. */
function controlPlaneHost(io: CliIo): ControlPlaneHost {
  const env = io.env ?? process.env;
  return {
    fetch: io.fetch ?? nodeFetch,
    env: (name) => env[name],
    credentials: new FileCredentialStore(configDir(env as NodeJS.ProcessEnv)),
    sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
    notify: (text) => io.stderr.write(`${text}\n`),
  };
}

const processIo = (): CliIo => ({ cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });

/** The Node host of the core's commands: the real file system, the compiler, workerd for tests, the control plane, the agent tool server. */
export function nodeHost(io: CliIo): CommandHost {
  const { cwd, stdout } = io;
  let compiler: Compiler | undefined;
  const env = io.env ?? process.env;
  return {
    version: version(),
    project: (directory) => new NodeFileSystem(resolve(cwd, directory)),
    // Loaded on first use: TypeScript and esbuild are not needed to explain a code.
    compiler: io.compiler ?? (async () => (compiler ??= (await import('../adapters/node/compiler')).nodeCompiler())),
    // Stopped at once when its reader stops reading (platform dev's save or stop ends the engine running).
    runTests: (prepared, options) =>
      stoppable(async function* (signal) {
        const { runTestsInWorkerd } = await import('../adapters/workerd/test-host');
        // PLATFORM_TEST_TIMEOUT_MS shortens the 20-second limit, PLATFORM_HANDLER_DEADLINE_MS the handler
        // deadline, for the platform's own tests of them.
        const timeoutMs = Number(process.env.PLATFORM_TEST_TIMEOUT_MS) || undefined;
        const handlerDeadlineMs = Number(process.env.PLATFORM_HANDLER_DEADLINE_MS) || undefined;
        yield* runTestsInWorkerd(prepared, { ...options, timeoutMs, handlerDeadlineMs, signal });
      }),
    templates: async () => (await import('../adapters/node/templates')).nodeTemplates(),
    runScript: async (directory, script) => (await import('../adapters/node/run-script')).runPackageScript(resolve(cwd, directory), script),
    print: (text) => stdout.write(`${text}\n`),
    controlPlane: controlPlaneHost(io),
    agent: {
      // The tool server's commands run with this host again, rooted where PLATFORM_MCP_ROOT says.
      serve: async () => (await import('../mcp/stdio')).serveStdio({ cwd, env, version: version(), stderr: io.stderr, host: (rooted) => nodeHost({ ...io, ...rooted }) }),
      toolchain: async () => (await import('../mcp/toolchain')).toolchainChecks(),
    },
    local: nodeLocalHost(cwd),
  };
}

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
