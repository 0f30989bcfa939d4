/**
 * `platform actions`: the machine-readable catalogue (`platform.actions.v0`) of every command and every
 * agent tool with its safety class. The tools are read from their records (./agent-tools.ts), which the
 * tool server serves: a command's `tool` is the record that runs it.
 */
import { envelope } from '../diagnostics/index.ts';
import { AGENT_TOOLS, type Profile, type SafetyClass } from './agent-tools.ts';
import type { CommandDefinition, CommandHost, Invocation } from './types.ts';
import { printReport } from './report.ts';

export const ACTIONS_PROTOCOL = 'platform.actions.v0';

export type { Profile, SafetyClass } from './agent-tools.ts';

export interface CommandAction {
  name: string;
  safety: SafetyClass;
  /** The agent tool that runs it, when one does. */
  tool?: string;
  /** Why no tool runs it, for the commands the tool server leaves to a person. */
  notExposed?: string;
}

export interface ToolAction {
  name: string;
  safety: SafetyClass;
  /** The lowest profile that has it: author tools are in both. */
  profile: Profile;
  /** The CLI command it runs through the core, when it runs one. */
  command?: string;
  summary: string;
}

const PERSON = 'A person runs it: it changes production, destroys data or handles secrets.';

/** The commands as written here; their tools are added from the records. */
const COMMANDS: ReadonlyArray<Omit<CommandAction, 'tool'>> = [
  { name: 'new', safety: 'local-write' },
  { name: 'init', safety: 'local-write' },
  { name: 'check', safety: 'read' },
  { name: 'build', safety: 'local-write' },
  { name: 'test', safety: 'local-run' },
  { name: 'dev', safety: 'local-run' },
  { name: 'preview', safety: 'local-run' },
  { name: 'deploy', safety: 'production', notExposed: 'Only --environment preview is a tool (platform_deploy_preview); a production deploy is a person\'s step.' },
  { name: 'promote', safety: 'production' },
  { name: 'rollback', safety: 'production', notExposed: PERSON },
  { name: 'deployments', safety: 'read' },
  { name: 'link', safety: 'local-write' },
  { name: 'env', safety: 'secret', notExposed: PERSON },
  { name: 'disable', safety: 'production', notExposed: PERSON },
  { name: 'enable', safety: 'production', notExposed: PERSON },
  { name: 'delete', safety: 'destructive', notExposed: PERSON },
  { name: 'domains', safety: 'production', notExposed: PERSON },
  { name: 'token', safety: 'secret', notExposed: PERSON },
  { name: 'auth', safety: 'secret', notExposed: 'Only auth status is a tool; signing in is a person\'s step.' },
  { name: 'state', safety: 'destructive', notExposed: PERSON },
  { name: 'export', safety: 'read' },
  { name: 'import', safety: 'destructive', notExposed: PERSON },
  { name: 'inspect', safety: 'read' },
  { name: 'logs', safety: 'read' },
  { name: 'db', safety: 'destructive', notExposed: PERSON },
  { name: 'doctor', safety: 'read' },
  { name: 'agent', safety: 'local-write' },
  { name: 'actions', safety: 'read' },
  { name: 'diagnostics', safety: 'read' },
  { name: 'mcp', safety: 'local-run' },
  { name: 'tunnel', safety: 'secret', notExposed: PERSON },
];

/** Every command of the specification, implemented or planned, with its safety class and the tool that runs it. */
export const COMMAND_ACTIONS: readonly CommandAction[] = COMMANDS.map(({ name, safety, notExposed }) => {
  const tool = AGENT_TOOLS.find((t) => t.command === name)?.name;
  return { name, safety, ...(tool ? { tool } : {}), ...(notExposed ? { notExposed } : {}) };
});

/** The fifteen tools of the tool server, as their records give them. */
export const TOOL_ACTIONS: readonly ToolAction[] = AGENT_TOOLS.map(({ name, safety, profile, command, summary }) => ({ name, safety, profile, ...(command ? { command } : {}), summary }));

export interface ActionsDocument {
  protocol: typeof ACTIONS_PROTOCOL;
  version: string;
  commands: CommandAction[];
  tools: ToolAction[];
}

export function actionsDocument(version: string): ActionsDocument {
  return { protocol: ACTIONS_PROTOCOL, version, commands: [...COMMAND_ACTIONS], tools: [...TOOL_ACTIONS] };
}

export const actions: CommandDefinition<ActionsDocument> = {
  name: 'actions',
  summary: 'Print the catalogue of commands and agent tools with their safety classes (platform.actions.v0).',
  positionals: [],
  options: {},
  streams: true,
  async run(invocation: Invocation, host: CommandHost) {
    const document = actionsDocument(host.version);
    const value = envelope('actions', [], document);
    printReport(invocation, host, value, document, () => {
      const width = Math.max(...COMMAND_ACTIONS.map((c) => c.name.length)) + 2;
      const lines = ['Commands:'];
      for (const c of COMMAND_ACTIONS) lines.push(`  ${c.name.padEnd(width)}${c.safety.padEnd(13)}${c.tool ?? '—'}`);
      lines.push('', 'Agent tools:');
      for (const t of TOOL_ACTIONS) lines.push(`  ${t.name.padEnd(26)}${t.safety.padEnd(13)}${t.profile}`);
      return lines.join('\n');
    });
    return value;
  },
};
