/** What a command is: its arguments, and a function from an invocation and a host to an envelope. */
import type { CommandEnvelope } from '../diagnostics/index.ts';
import type { Compiler, PreparedTests } from '../build/index.ts';
import type { TestEvent } from '../testing/index.ts';
import type { WritableFileSystem } from '../fs/index.ts';
import type { ControlPlaneHost } from '../deploy/index.ts';
import type { LocalHost } from '../local/index.ts';

export interface OptionSpec {
  type: 'boolean' | 'string';
  description: string;
  /** Shown in usage for string options, e.g. `<id>`. */
  valueName?: string;
}

export interface PositionalSpec {
  name: string;
  required: boolean;
  description: string;
}

export interface Invocation {
  positionals: string[];
  options: Record<string, string | boolean | undefined>;
}

/** A bundled template `platform new` can copy. */
export interface Template {
  id: string;
  /** The template's one-line description (its manifest's app.description). */
  description: string;
  files: Record<string, string | Uint8Array>;
}

/** One check only the host can make (the Node version, the workerd and esbuild binaries). */
export interface ToolchainCheck {
  name: string;
  ok: boolean;
  /** What was found, or what is wrong and how to fix it. */
  detail: string;
}

/** What only a Node host does for the agent commands. */
export interface AgentHost {
  /** Serves the tool server over this process's stdin and stdout until the client closes them. */
  serve(): Promise<void>;
  /** The toolchain checks of `platform doctor`. */
  toolchain(): Promise<ToolchainCheck[]>;
}

/** What a host (Node CLI, browser terminal) gives a command. */
export interface CommandHost {
  /** The project directory named on the command line, as a file system rooted there. */
  project(directory: string): WritableFileSystem;
  /** The compiler (esbuild, the platform Library, a type-check session), made on first use. */
  compiler(): Promise<Compiler>;
  /** The version of the toolchain, for `--version` and reports. */
  version: string;
  /** Runs prepared tests where the host can stop a runaway one (the CLI: workerd engines). */
  runTests?(prepared: PreparedTests, options: { only?: string }): AsyncIterable<TestEvent>;
  /** Runs a package script of the project in `directory` (`npm run <script>`), for `platform init`. */
  runScript?(directory: string, script: string): Promise<{ code: number; output: string }>;
  /** The bundled templates (`platform new`). */
  templates?(): Promise<Template[]>;
  /** Prints a line as soon as it is ready (commands that stream, such as `test`); without it, output is returned at the end. */
  print?(text: string): void;
  /** A control plane and the builder's credentials (auth, token, deploy and the commands that operate deployed apps). */
  controlPlane?: ControlPlaneHost;
  /** What only a Node host can do for the agent commands: serve the tool server on stdio, check the toolchain (`platform mcp`, `platform doctor`). */
  agent?: AgentHost;
  /** Local servers, file watching and local state on disk (`platform dev`, `preview`, `state`, `db`, `export`, `import`). */
  local?: LocalHost;
}

export interface CommandDefinition<Result = unknown> {
  name: string;
  summary: string;
  positionals: PositionalSpec[];
  options: Record<string, OptionSpec>;
  /** True for a command that prints its own output (events, a report) through `host.print` instead of an envelope. */
  streams?: true;
  run(invocation: Invocation, host: CommandHost): Promise<CommandEnvelope<Result>>;
  /** Human-readable text for a successful result; diagnostics are printed around it by the shared formatter. */
  text?(envelope: CommandEnvelope<Result>): string;
}
