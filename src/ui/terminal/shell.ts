/**
 * What the terminal runs: `platform <args>` in a WebContainer's Node when one is ready (the real CLI),
 * otherwise the core's own commands in the browser (check, build, diagnostics, help in the compiler
 * worker; test through the sandboxed test runner), printing the same text. Plus `help` and `clear`.
 */
import { describeUnavailable, type EnvironmentStatus, type NodeEnvironment } from '../../adapters/webcontainer';
import type { TestEvent } from '../../core/testing';
import type { CommandOptions, CommandOutcome, CommandTestRun } from '../compiler-client';
import { splitArguments } from './line-editor';

/** Commands the browser runs with the core's implementations (without a WebContainer). */
export const BROWSER_COMMANDS = ['check', 'build', 'test', 'diagnostics', 'help'] as const;

/**
 * Commands of the CLI that need Node (a file system to write, a control plane, credentials, a server
 * to listen): `platform dev` among them, which runs in the WebContainer when one booted.
 */
const NODE_ONLY = new Set(['new', 'deploy', 'promote', 'rollback', 'deployments', 'link', 'env', 'disable', 'enable', 'delete', 'token', 'auth', 'dev', 'preview', 'state', 'export', 'import', 'db', 'inspect', 'logs', 'tunnel', 'domains', 'mcp']);

export interface Mode {
  kind: 'webcontainer' | 'browser';
  /** The sentence the panel shows. */
  text: string;
}

export function modeOf(status: EnvironmentStatus): Mode {
  switch (status.state) {
    case 'ready':
      return { kind: 'webcontainer', text: 'Node in a WebContainer — `platform` runs the real CLI over this project' };
    case 'idle':
    case 'booting':
      return { kind: 'browser', text: 'In-browser commands — WebContainer starting…' };
    case 'unavailable':
      return { kind: 'browser', text: `In-browser commands — WebContainer unavailable: ${describeUnavailable(status.reason)}` };
    default: {
      const unknown: never = status;
      return unknown;
    }
  }
}

/** The DG1208 reason in the browser: why packages cannot be installed here, exactly. */
export function installUnavailable(status: EnvironmentStatus): string {
  const why = status.state === 'unavailable' ? describeUnavailable(status.reason) : status.state === 'ready' ? 'the WebContainer is not used by this command' : 'it has not started yet';
  return `Packages cannot be installed in the browser playground unless a WebContainer is available (here: ${why}).`;
}

export interface ShellHost {
  files(): Record<string, string>;
  compiler: { command(args: readonly string[], files: Record<string, string | Uint8Array>, options: CommandOptions): Promise<CommandOutcome> };
  environment: NodeEnvironment;
  /** Runs `platform test`'s tests in the page's sandboxes (src/ui/tests/test-runner.ts). */
  runTests(run: CommandTestRun, signal: AbortSignal): AsyncIterable<TestEvent>;
  /** The app's packages, after `npm install` in the WebContainer, for the compiler to resolve (node_modules/…). */
  onDependencies?(files: Record<string, Uint8Array>): void;
}

export interface ShellIo {
  /** Writes terminal text (`\n` is written as `\r\n`). */
  write(text: string): void;
  clear(): void;
  size(): { cols: number; rows: number };
}

const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');

/**
 * The shell's own sentences broken between words to the terminal's width (a terminal breaks a long
 * line at its last column, mid-word); a word longer than a line (a URL) is left whole. Ends with CRLF.
 */
export function wrapWords(text: string, cols: number): string {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      if (line && line.length + 1 + word.length > cols) {
        lines.push(line);
        line = word;
      } else {
        line = line ? `${line} ${word}` : word;
      }
    }
    lines.push(line);
  }
  return `${lines.join('\r\n')}\r\n`;
}

function helpText(mode: Mode): string {
  const where = mode.kind === 'webcontainer' ? 'Every platform command runs in Node, in the WebContainer.' : 'platform runs in the browser: check, build, test, diagnostics and help (the same implementations as the CLI).';
  return [
    `${mode.text}.`,
    where,
    '',
    'Commands:',
    '  platform check [directory]    validate the project without running it',
    '  platform build [directory]    build and verify an artifact',
    '  platform test [--only <name>] run the tests, each on fresh state',
    '  platform diagnostics <code>   explain a diagnostic code',
    `  platform dev                  serve the app and rebuild on save${mode.kind === 'webcontainer' ? '' : ' (needs the WebContainer)'}`,
    '  platform help [command]       the CLI\'s own help',
    '  platform --version',
    '  help                          this list',
    '  clear                         clear the screen',
    '',
    'Keys: ↑/↓ history, Backspace, Enter; Ctrl-C drops the line or stops the running command.',
  ].join('\n');
}

export class Shell {
  readonly #host: ShellHost;
  /** The package.json whose dependencies were installed in the WebContainer. */
  #installedFor: string | undefined;

  constructor(host: ShellHost) {
    this.#host = host;
  }

  get mode(): Mode {
    return modeOf(this.#host.environment.status);
  }

  /** Runs one line; resolves its exit status. `signal` is Ctrl-C. */
  async run(line: string, io: ShellIo, signal: AbortSignal): Promise<number> {
    const [name, ...args] = splitArguments(line);
    if (name === undefined) return 0;
    if (name === 'help') {
      io.write(`${crlf(helpText(this.mode))}\r\n`);
      return 0;
    }
    if (name === 'clear') {
      io.clear();
      return 0;
    }
    if (name !== 'platform' && name !== 'npx') {
      io.write(wrapWords(`${name}: command not found. This terminal runs platform <command>; type help for the list.`, io.size().cols));
      return 127;
    }
    const argv = name === 'npx' ? (args[0] === 'platform' ? args.slice(1) : undefined) : args;
    if (!argv) {
      io.write(wrapWords('npx runs only platform here: npx platform <command>.', io.size().cols));
      return 127;
    }
    try {
      return this.#host.environment.status.state === 'ready' ? await this.#inContainer(argv, io, signal) : await this.#inBrowser(argv, io, signal);
    } catch (error) {
      io.write(`${crlf(error instanceof Error ? error.message : String(error))}\r\n`);
      return 1;
    }
  }

  async #inBrowser(args: string[], io: ShellIo, signal: AbortSignal): Promise<number> {
    const command = args[0];
    if (command !== undefined && NODE_ONLY.has(command)) {
      const status = this.#host.environment.status;
      const why = status.state === 'unavailable' ? ` (WebContainer unavailable: ${describeUnavailable(status.reason)})` : '';
      io.write(wrapWords(`platform ${command} needs Node: it runs in the terminal when a WebContainer is available${why}, or with the CLI on your machine.`, io.size().cols));
      return 2;
    }
    const outcome = this.#host.compiler.command(args, this.#host.files(), {
      onOutput: (text) => {
        if (!signal.aborted) io.write(`${crlf(text)}\r\n`);
      },
      runTests: (run) => this.#host.runTests(run, signal),
      installUnavailable: installUnavailable(this.#host.environment.status),
    });
    const stopped = new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));
    const result = await Promise.race([outcome, stopped]);
    if (!result) return 130;
    if (result.output) io.write(`${crlf(result.output)}\r\n`);
    return result.exitCode;
  }

  async #inContainer(args: string[], io: ShellIo, signal: AbortSignal): Promise<number> {
    const env = this.#host.environment;
    const files = this.#host.files();
    await env.mount(files);
    const terminal = io.size();
    const pkg = files['package.json'];
    if (pkg !== undefined && pkg !== this.#installedFor) {
      const install = await env.installDependencies({ terminal });
      if (install) {
        io.write('npm install (the dependencies of package.json)\r\n');
        const code = await this.#pipe(install, io, signal);
        if (code !== 0) return code;
        this.#host.onDependencies?.(await env.nodeModules());
      }
      this.#installedFor = pkg;
    }
    // A server started in the container (platform dev) is reachable by this page at its own URL, not at the loopback address it prints.
    const off = env.onServerReady((port, url) => io.write(`\r\n${wrapWords(`Serving port ${port} of the WebContainer at ${url}`, io.size().cols)}`));
    try {
      const process = await env.platform(args, { terminal, onSetup: (text) => io.write(text) });
      return await this.#pipe(process, io, signal);
    } finally {
      off();
    }
  }

  async #pipe(process: { output: ReadableStream<string>; exit: Promise<number>; kill(): void }, io: ShellIo, signal: AbortSignal): Promise<number> {
    const stop = () => process.kill();
    signal.addEventListener('abort', stop, { once: true });
    try {
      const reader = process.output.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) io.write(r.value);
      return await process.exit;
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }
}
