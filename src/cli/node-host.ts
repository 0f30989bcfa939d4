/** The Node host of the core's commands (`nodeHost`): the real file system, the compiler, workerd for tests, the control plane over Node's fetch, the agent tool server; and the CLI's streams and options (`CliIo`). */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CommandHost } from '../core/commands';
import { stoppable } from '../core/host';
import type { Compiler } from '../core/build';
import type { ControlPlaneHost } from '../core/deploy';
import { NodeFileSystem } from '../adapters/node/node-file-system';
import { nodeLocalHost } from '../adapters/node/local-host';
import { FileCredentialStore, configDir } from '../adapters/node/credentials';

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
