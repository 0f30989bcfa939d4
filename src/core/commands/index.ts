/** Every command, and one entry point from an argument vector to an envelope, text and exit status. */
import { diagnostic, envelope, exitStatus, type CommandEnvelope } from '../diagnostics/index.ts';
import { refusedWriteDiagnostic } from '../local/index.ts';
import { didYouMean } from '../text/index.ts';
import { GLOBAL_OPTIONS, parseArguments } from './argv.ts';
import { build } from './build.ts';
import { check } from './check.ts';
import { explain } from './explain.ts';
import { create } from './new.ts';
import { init } from './init.ts';
import { test } from './test.ts';
import { dev } from './dev.ts';
import { preview } from './preview.ts';
import { exportCommand, importCommand, state } from './state.ts';
import { db } from './db.ts';
import { auth } from './auth.ts';
import { token } from './token.ts';
import { domains } from './domains.ts';
import { tunnel } from './tunnel.ts';
import { deploy } from './deploy.ts';
import { promote } from './promote.ts';
import { rollback } from './rollback.ts';
import { deployments } from './deployments.ts';
import { link } from './link.ts';
import { env } from './env.ts';
import { disable, enable, remove } from './lifecycle.ts';
import { agent } from './agent.ts';
import { actions } from './actions.ts';
import { doctor } from './doctor.ts';
import { mcp } from './mcp.ts';
import { inspect, logs } from './inspect.ts';
import { formatEnvelope } from './format.ts';
import type { CommandDefinition, CommandHost } from './types.ts';

export type { AgentHost, CommandDefinition, CommandHost, Invocation, OptionSpec, PositionalSpec, Template, ToolchainCheck } from './types.ts';
export { parseArguments } from './argv.ts';
export { formatDiagnostic, formatEnvelope } from './format.ts';

export const commands: ReadonlyArray<CommandDefinition<any>> = [
  create, init, check, build, test, explain, deploy, promote, rollback, deployments, link, env, disable, enable, remove, token, domains, tunnel, auth, doctor, agent, actions, mcp, inspect, logs, dev, preview, state, exportCommand, importCommand, db,
];

/** Commands the specification names that this version does not implement yet: DG0001 says so plainly. */
export const PLANNED_COMMANDS = [] as const;

export interface CommandOutcome {
  envelope: CommandEnvelope;
  /** What to print: the JSON envelope with `--json`, readable text otherwise. */
  output: string;
  exitCode: 0 | 1 | 2;
}

function usage(command: CommandDefinition): string {
  const args = command.positionals.map((p) => (p.required ? `<${p.name}>` : `[${p.name}]`));
  const lines = [`Usage: platform ${[command.name, ...args].join(' ')} [options]`, '', command.summary];
  const options = { ...command.options, ...GLOBAL_OPTIONS };
  lines.push('', 'Options:');
  for (const [name, spec] of Object.entries(options)) {
    const left = `  --${name}${spec.type === 'string' ? ` ${spec.valueName ?? '<value>'}` : ''}`;
    lines.push(`${left.padEnd(26)}${spec.description}`);
  }
  return lines.join('\n');
}

export function helpText(version: string): string {
  const lines = [`platform ${version}: check, build, test and deploy applications on the platform.`, '', 'Usage: platform <command> [options]', '', 'Commands:'];
  for (const command of commands) lines.push(`  ${command.name.padEnd(14)}${command.summary}`);
  lines.push('', 'Every command accepts --json (one platform.command.v0 envelope) and --help.', 'Explain any diagnostic code with: platform diagnostics <code>');
  return lines.join('\n');
}

function outcome(value: CommandEnvelope, json: boolean, body = ''): CommandOutcome {
  return { envelope: value, output: json ? JSON.stringify(value, null, 2) : formatEnvelope(value, body), exitCode: exitStatus(value) };
}

/** Runs `platform <args…>` against a host. Never throws for bad input; only a crash in a command escapes. */
export async function runCommandLine(args: readonly string[], host: CommandHost): Promise<CommandOutcome> {
  const json = args.includes('--json');
  // `--json` may come before the command (`platform --json check`); alone it asks for the usage.
  const at = args.findIndex((arg) => arg !== '--json');
  const name = at < 0 ? undefined : args[at];
  const rest = at < 0 ? [] : [...args.slice(0, at), ...args.slice(at + 1)];
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = name === 'help' ? commands.find((c) => c.name === rest.find((arg) => arg !== '--json')) : undefined;
    return outcome(envelope('help', []), json, topic ? usage(topic) : helpText(host.version));
  }
  if (name === '--version' || name === '-v') {
    return outcome(envelope('version', [], { version: host.version }), json, host.version);
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    const planned = (PLANNED_COMMANDS as readonly string[]).includes(name);
    const message = planned ? `platform ${name} is not implemented in this version.` : `Unknown command "${name}".`;
    const hint = planned ? 'Run `platform help` to see the commands this version has.' : (didYouMean(name, [...commands.map((c) => c.name), ...PLANNED_COMMANDS]) ?? 'Run `platform help` to list the commands.');
    return outcome(envelope(name, [diagnostic('DG0001', message, { hint })]), json);
  }
  const parsed = parseArguments(rest, command.options, command.positionals);
  if (!parsed.ok) {
    return outcome(envelope(command.name, parsed.diagnostics), json, `\n${usage(command)}`);
  }
  if (parsed.invocation.options.help) return outcome(envelope(command.name, []), json, usage(command));
  if (command.streams) {
    // A streaming command prints as it goes; without a printer its lines are the output.
    const lines: string[] = [];
    const value = await command.run(parsed.invocation, { ...host, print: host.print ?? ((text) => lines.push(text)) });
    return { envelope: value, output: lines.join('\n'), exitCode: exitStatus(value) };
  }
  let value;
  try {
    value = await command.run(parsed.invocation, host);
  } catch (error) {
    // A write the project's file system refused (a link on its path, say under .platform/) is an answer, DG1813, not a crash.
    const refused = refusedWriteDiagnostic(error);
    if (!refused) throw error;
    value = envelope(command.name, [refused]);
  }
  return outcome(value, json, command.text?.(value) ?? '');
}

// What the rest of the code base uses of this folder's other modules.
export { actionsDocument, COMMAND_ACTIONS, TOOL_ACTIONS } from './actions.ts';
export { commandResult, MCP_RESULT_PROTOCOL, type McpResult, refusedResult, ToolRefusal } from './agent-tool-result.ts';
export { AGENT_TOOLS, type DevSessionsHost, type DevSessionView, isLoopbackHost, type Profile, type ToolContext, type ToolName, toolsOf } from './agent-tools.ts';
