/**
 * `platform actions`: the machine-readable catalogue (`platform.actions.v0`) of every command and every
 * agent tool with its safety class. The tool server's list of tools and profiles is read from here.
 */
import { envelope } from '../diagnostics';
import type { CommandDefinition, CommandHost, Invocation } from './types';
import { printReport } from './report';

export const ACTIONS_PROTOCOL = 'platform.actions.v0';

/**
 * What running an action can change, from least to most:
 * `read` reads only; `local-write` writes project files or generated state under `.platform/`;
 * `local-run` runs the app's code on this machine; `preview` changes the hosted preview;
 * `production` changes what production serves; `destructive` removes data or apps;
 * `secret` reads or writes credentials, tokens or environment values.
 */
export type SafetyClass = 'read' | 'local-write' | 'local-run' | 'preview' | 'production' | 'destructive' | 'secret';

export type Profile = 'author' | 'operator';

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

/** Every command of the specification, implemented or planned, with its safety class. */
export const COMMAND_ACTIONS: readonly CommandAction[] = [
  { name: 'new', safety: 'local-write', tool: 'platform_new' },
  { name: 'init', safety: 'local-write' },
  { name: 'check', safety: 'read', tool: 'platform_check' },
  { name: 'build', safety: 'local-write', tool: 'platform_build' },
  { name: 'test', safety: 'local-run', tool: 'platform_test' },
  { name: 'dev', safety: 'local-run', tool: 'platform_dev_start' },
  { name: 'preview', safety: 'local-run' },
  { name: 'deploy', safety: 'production', tool: 'platform_deploy_preview', notExposed: 'Only --environment preview is a tool (platform_deploy_preview); a production deploy is a person\'s step.' },
  { name: 'promote', safety: 'production', tool: 'platform_promote' },
  { name: 'rollback', safety: 'production', notExposed: PERSON },
  { name: 'deployments', safety: 'read' },
  { name: 'link', safety: 'local-write' },
  { name: 'env', safety: 'secret', notExposed: PERSON },
  { name: 'disable', safety: 'production', notExposed: PERSON },
  { name: 'enable', safety: 'production', notExposed: PERSON },
  { name: 'delete', safety: 'destructive', notExposed: PERSON },
  { name: 'domains', safety: 'production', notExposed: PERSON },
  { name: 'token', safety: 'secret', notExposed: PERSON },
  { name: 'auth', safety: 'secret', tool: 'platform_auth_status', notExposed: 'Only auth status is a tool; signing in is a person\'s step.' },
  { name: 'state', safety: 'destructive', notExposed: PERSON },
  { name: 'export', safety: 'read' },
  { name: 'import', safety: 'destructive', notExposed: PERSON },
  { name: 'inspect', safety: 'read', tool: 'platform_inspect' },
  { name: 'logs', safety: 'read' },
  { name: 'db', safety: 'destructive', notExposed: PERSON },
  { name: 'doctor', safety: 'read', tool: 'platform_doctor' },
  { name: 'agent', safety: 'local-write', tool: 'platform_agent_context' },
  { name: 'actions', safety: 'read' },
  { name: 'diagnostics', safety: 'read', tool: 'platform_diagnostics' },
  { name: 'mcp', safety: 'local-run' },
  { name: 'tunnel', safety: 'secret', notExposed: PERSON },
];

/** The fifteen tools of the tool server: fourteen in the author profile, promote in the operator profile only. */
export const TOOL_ACTIONS: readonly ToolAction[] = [
  { name: 'platform_check', safety: 'read', profile: 'author', command: 'check', summary: 'Validate the manifest, both source graphs, the server definition and the types.' },
  { name: 'platform_build', safety: 'local-write', profile: 'author', command: 'build', summary: 'Build a verified, content-addressed artifact under .platform/.' },
  { name: 'platform_test', safety: 'local-run', profile: 'author', command: 'test', summary: 'Build, type-check and run tests/**/*.test.ts, each test against fresh isolated state.' },
  { name: 'platform_new', safety: 'local-write', profile: 'author', command: 'new', summary: 'Create an app from a bundled template in an empty or new directory.' },
  { name: 'platform_agent_context', safety: 'read', profile: 'author', command: 'agent', summary: 'Normalized project facts (platform.agent-context.v0); writes nothing.' },
  { name: 'platform_docs_search', safety: 'read', profile: 'author', summary: 'Rank the platform documentation for a query (platform.docs-search.v0).' },
  { name: 'platform_doctor', safety: 'read', profile: 'author', command: 'doctor', summary: 'Check the toolchain and the generated state.' },
  { name: 'platform_deploy_preview', safety: 'preview', profile: 'author', command: 'deploy', summary: 'Build and deploy to the preview environment (never production).' },
  { name: 'platform_promote', safety: 'production', profile: 'operator', command: 'promote', summary: 'Promote the artifact of an exact review receipt to production.' },
  { name: 'platform_auth_status', safety: 'read', profile: 'author', command: 'auth', summary: 'Who is signed in to the control plane (never signs in).' },
  { name: 'platform_inspect', safety: 'read', profile: 'author', command: 'inspect', summary: 'Read a preview URL\'s views: manifest, state, logs or export.' },
  { name: 'platform_dev_start', safety: 'local-run', profile: 'author', command: 'dev', summary: 'Start a platform dev session and wait for it to serve.' },
  { name: 'platform_dev_status', safety: 'read', profile: 'author', summary: 'Read a dev session\'s events after a cursor, long-polling up to waitMilliseconds.' },
  { name: 'platform_dev_stop', safety: 'local-run', profile: 'author', summary: 'Stop a dev session and read its last events.' },
  { name: 'platform_diagnostics', safety: 'read', profile: 'author', command: 'diagnostics', summary: 'Explain a diagnostic code: what it means and how to repair it.' },
];

/** The tools a profile serves. */
export function toolsOf(profile: Profile): ToolAction[] {
  return TOOL_ACTIONS.filter((tool) => profile === 'operator' || tool.profile === 'author');
}

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
