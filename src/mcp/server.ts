/**
 * The agent tool server: the fifteen tools and seven resources of tooling.md over the Model Context
 * Protocol (the official SDK's Server). The tools are their records (src/core/commands/agent-tools.ts),
 * registered here and run with what the server holds: command tools run the CLI's commands through the
 * core's `runCommandLine` and keep its envelope at `result.envelope`; every directory argument is
 * confined to the root; the operator profile comes from the server's configuration only.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCommandLine, type CommandHost, COMMAND_ACTIONS, type Profile, commandResult, refusedResult, ToolRefusal, type McpResult, AGENT_TOOLS, toolsOf, type ToolContext } from '../core/commands';
import { diagnostic, envelope, type CommandEnvelope } from '../core/diagnostics';
import { MANIFEST_FILE } from '../core/manifest';
import { confine } from './confine';
import { DevSessions } from './dev-sessions';
import { Docs } from './docs';
import { inputJsonSchema, toolInput } from './tools';

export { commandResult, MCP_RESULT_PROTOCOL, type McpResult } from '../core/commands';

export interface AgentServerOptions {
  /** PLATFORM_MCP_ROOT, or the server's working directory. */
  root: string;
  profile: Profile;
  version: string;
  /** PLATFORM_MCP_VERSION of the configuration that launched the server: the version that wrote it. */
  pinnedVersion?: string;
  /** The host the commands run on; its `print` is not used (stdout carries the protocol). */
  host: CommandHost;
  /** The environment `platform dev` children get. */
  env: NodeJS.ProcessEnv;
  docs?: Docs;
}

/** Runs `platform <args> --json` through the core; a command that throws has crashed before an envelope, and DG0000 is made for it. */
export async function runCommand(host: CommandHost, command: string, options: string[], positionals: string[]): Promise<CommandEnvelope> {
  try {
    const outcome = await runCommandLine([command, ...options, '--json', '--', ...positionals], host);
    return outcome.envelope;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return envelope(command, [diagnostic('DG0000', `platform ${command} crashed before producing a result: ${message}`, { hint: 'Run the command in a terminal with PLATFORM_DEBUG=1 to see the stack trace, and report it.' })]);
  }
}

function forbiddenReason(name: string): string | undefined {
  if (!name.startsWith('platform_')) return undefined;
  const command = name.slice('platform_'.length).split('_')[0];
  return COMMAND_ACTIONS.find((c) => c.name === command && c.notExposed)?.notExposed;
}

export function createAgentServer(options: AgentServerOptions): { server: Server; close(): Promise<void> } {
  const { root, profile, version, host } = options;
  const tools = toolsOf(profile);
  const docs = options.docs ?? new Docs();
  const dev = new DevSessions(options.env);
  const server = new Server({ name: 'platform', version }, { capabilities: { tools: {}, resources: {} } });

  const toolContext = (action: string): ToolContext => ({
    action,
    directory(given) {
      const confined = confine(root, given);
      if (!confined.ok) throw new ToolRefusal('outside_root', confined.message, 'Give a directory inside the root, relative to it.');
      return confined.path;
    },
    command: async (name, opts, positionals) => commandResult(action, await runCommand(host, name, opts, positionals)),
    docs,
    dev,
  });

  async function call(name: string, args: unknown): Promise<McpResult> {
    const action = name.startsWith('platform_') ? name.slice('platform_'.length) : name;
    try {
      if (options.pinnedVersion !== undefined && options.pinnedVersion !== version) {
        throw new ToolRefusal('version_mismatch', `This configuration was written by platform ${options.pinnedVersion}; this tool server is ${version}.`, 'Run platform agent setup with the platform you mean to use, so the configuration and the server agree.');
      }
      const tool = tools.find((t) => t.name === name);
      if (!tool) {
        if (AGENT_TOOLS.some((t) => t.name === name)) throw new ToolRefusal('operator_only', `${name} is in the operator profile only.`, 'A person enables it in the server\'s configuration (PLATFORM_MCP_PROFILE=operator); no tool argument can.');
        const reason = forbiddenReason(name);
        if (reason) throw new ToolRefusal('forbidden_action', `${name} is not exposed to agents. ${reason}`);
        throw new ToolRefusal('unknown_tool', `There is no tool ${name}.`, `Tools: ${tools.map((t) => t.name).join(', ')}.`);
      }
      const parsed = toolInput(tool.name).safeParse(args ?? {});
      if (!parsed.success) {
        const message = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'input'}: ${i.message}`).join('; ');
        throw new ToolRefusal('invalid_input', `Invalid input for ${name}: ${message}.`, 'See the tool\'s input schema (tools/list).');
      }
      return await tool.run(parsed.data, toolContext(action));
    } catch (error) {
      if (error instanceof ToolRefusal) return refusedResult(action, error);
      const message = error instanceof Error ? error.message : String(error);
      return commandResult(action, envelope(action, [diagnostic('DG0000', `The tool ${name} crashed before producing a result: ${message}`)]));
    }
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      description: `${tool.summary} Safety: ${tool.safety}.`,
      inputSchema: inputJsonSchema(tool.name),
      annotations: { readOnlyHint: tool.safety === 'read', destructiveHint: false, openWorldHint: tool.safety === 'preview' || tool.safety === 'production' },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const result = await call(request.params.name, request.params.arguments);
    return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], structuredContent: result as unknown as Record<string, unknown>, isError: !result.ok };
  });

  // Resources: the project at the root, the docs, the diagnostic catalogue.
  const json = (uri: string, value: unknown) => ({ contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }] });
  const context = async () => runCommand(host, 'agent', [], ['context', root]);
  const project = [
    { uri: 'platform://project/context', name: 'project-context', description: 'platform.agent-context.v0 of the project at the root.' },
    { uri: 'platform://project/manifest', name: 'project-manifest', description: 'The project\'s app.manifest.json.' },
    { uri: 'platform://project/operations', name: 'project-operations', description: 'Queries, mutations, endpoints and policies of the server definition.' },
    { uri: 'platform://project/tests', name: 'project-tests', description: 'The test files under tests/.' },
    { uri: 'platform://docs/index', name: 'docs-index', description: 'The platform documentation pages.' },
  ];

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [
      ...project.map((r) => ({ ...r, mimeType: 'application/json' })),
      ...docs.pages.map((page) => ({ uri: page.uri, name: page.path, title: page.title, mimeType: 'text/markdown' })),
    ],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      { uriTemplate: 'platform://docs/{+path}', name: 'docs-page', description: 'A documentation page by its path under docs/ (see platform://docs/index).', mimeType: 'text/markdown' },
      { uriTemplate: 'platform://diagnostics/{code}', name: 'diagnostic', description: 'A diagnostic code\'s entry in the catalogue: severity, title, repair.', mimeType: 'application/json' },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    switch (uri) {
      case 'platform://project/context': {
        const value = await context();
        return json(uri, value.ok ? value.result : value);
      }
      case 'platform://project/manifest': {
        let text: string;
        try {
          text = readFileSync(join(root, MANIFEST_FILE), 'utf8');
        } catch {
          throw new McpError(ErrorCode.InvalidParams, `No ${MANIFEST_FILE} at the tool server's root.`);
        }
        return { contents: [{ uri, mimeType: 'application/json', text }] };
      }
      case 'platform://project/operations':
      case 'platform://project/tests': {
        const value = await context();
        const facts = value.result as { operations: unknown; tests: string[]; zones: { test: unknown } } | undefined;
        if (!value.ok || !facts) return json(uri, value);
        return json(uri, uri.endsWith('operations') ? facts.operations : { tests: facts.tests, zone: facts.zones.test });
      }
      case 'platform://docs/index':
        return json(uri, { pages: docs.pages });
      default:
        break;
    }
    const page = /^platform:\/\/docs\/(.+)$/.exec(uri);
    if (page) {
      const text = docs.read(decodeURIComponent(page[1]!));
      if (text === undefined) throw new McpError(ErrorCode.InvalidParams, `No documentation page ${page[1]}; see platform://docs/index.`);
      return { contents: [{ uri, mimeType: 'text/markdown', text }] };
    }
    const code = /^platform:\/\/diagnostics\/(.+)$/.exec(uri);
    if (code) {
      const value = await runCommand(host, 'diagnostics', [], [decodeURIComponent(code[1]!)]);
      if (!value.ok) throw new McpError(ErrorCode.InvalidParams, value.diagnostics[0]?.message ?? `No diagnostic ${code[1]}.`);
      return json(uri, value.result);
    }
    throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${uri}.`);
  });

  return { server, close: () => dev.stopAll() };
}
