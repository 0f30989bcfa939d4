/**
 * The agent tool server: the fifteen tools and seven resources of tooling.md over the Model Context
 * Protocol (the official SDK's Server). Command tools run the CLI's commands through the core's
 * `runCommandLine` and keep its envelope at `result.envelope`; every directory argument is confined to
 * the root; the operator profile comes from the server's configuration only.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMAND_ACTIONS, toolsOf, type Profile } from '../core/commands/actions';
import { runCommandLine, type CommandHost } from '../core/commands';
import { hostedTarget } from '../core/deploy/ids';
import { diagnostic, envelope, type CommandEnvelope } from '../core/diagnostics';
import { MANIFEST_FILE } from '../core/manifest';
import { confine } from './confine';
import { DevSessions } from './dev-sessions';
import { Docs } from './docs';
import { inputJsonSchema, TOOL_INPUTS, type ToolInput, type ToolName } from './tools';

export const MCP_RESULT_PROTOCOL = 'platform.mcp-result.v0';

export interface McpResult {
  protocol: typeof MCP_RESULT_PROTOCOL;
  action: string;
  ok: boolean;
  result?: Record<string, unknown>;
  error?: { code: string; message: string; hint?: string; [key: string]: unknown };
}

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

/** The error that answers a refused call: not an exception, a result the agent can dispatch on. */
class Refusal extends Error {
  constructor(readonly code: string, message: string, readonly hint?: string) {
    super(message);
  }
}

function refusedResult(action: string, error: Refusal): McpResult {
  return { protocol: MCP_RESULT_PROTOCOL, action, ok: false, error: { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) } };
}

/** The result of a command tool: the envelope kept whole, and its first error as `error`. */
export function commandResult(action: string, value: CommandEnvelope, extra: Record<string, unknown> = {}): McpResult {
  const first = value.diagnostics.find((d) => d.severity === 'error');
  return {
    protocol: MCP_RESULT_PROTOCOL,
    action,
    ok: value.ok,
    result: { envelope: value, ...extra },
    ...(first ? { error: { code: first.code, message: first.message, ...(first.hint ? { hint: first.hint } : {}) } } : {}),
  };
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

const option = (name: string, value: string | number | undefined): string[] => (value === undefined ? [] : [`--${name}=${value}`]);

/**
 * `platform_inspect` reads preview only (its input is a preview URL; tooling.md offers no production
 * input): a hosted URL naming production is refused here, and every other target is read with
 * `--environment preview`. The environment a URL names is `hostedTarget`'s, as `inspect` reads it.
 */
function productionTarget(previewUrl: string): string | undefined {
  if (!/^https?:\/\//i.test(previewUrl)) return undefined;
  let host: string;
  try {
    host = new URL(previewUrl).host;
  } catch {
    return undefined;
  }
  const target = hostedTarget(host);
  return target?.environment === 'production' ? target.appId : undefined;
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

  const directoryOf = (given: string | undefined): string => {
    const confined = confine(root, given);
    if (!confined.ok) throw new Refusal('outside_root', confined.message, 'Give a directory inside the root, relative to it.');
    return confined.path;
  };

  const command = async (action: string, name: string, opts: string[], positionals: string[], extra?: (value: CommandEnvelope) => Record<string, unknown>) => {
    const value = await runCommand(host, name, opts, positionals);
    return commandResult(action, value, extra?.(value));
  };

  const handlers: { [N in ToolName]: (input: ToolInput<N>, action: string) => Promise<McpResult> } = {
    platform_check: (input, action) => command(action, 'check', [], [directoryOf(input.directory)]),
    platform_build: (input, action) => command(action, 'build', [], [directoryOf(input.directory)]),
    platform_doctor: (input, action) => command(action, 'doctor', [], [directoryOf(input.directory)]),
    platform_agent_context: (input, action) => command(action, 'agent', [], ['context', directoryOf(input.directory)]),
    async platform_test(input, action) {
      const directory = directoryOf(input.directory);
      const run = command(action, 'test', [], [directory]);
      if (input.timeoutMilliseconds === undefined) return run;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<McpResult>((done) => {
        timer = setTimeout(() => done(refusedResult(action, new Refusal('timeout', `platform test did not finish within ${input.timeoutMilliseconds} ms.`, 'Give a larger timeoutMilliseconds, or run fewer tests.'))), input.timeoutMilliseconds);
      });
      try {
        return await Promise.race([run, timedOut]);
      } finally {
        clearTimeout(timer);
      }
    },
    platform_new: (input, action) =>
      command(action, 'new', [...option('template', input.template), ...option('framework', input.framework), ...option('ui', input.ui)], [directoryOf(input.directory)]),
    async platform_docs_search(input, action) {
      return { protocol: MCP_RESULT_PROTOCOL, action, ok: true, result: { ...docs.search(input.query, input.limit) } };
    },
    platform_deploy_preview: (input, action) =>
      command(action, 'deploy', ['--environment=preview', ...option('control-url', input.controlUrl)], [directoryOf(input.directory)]),
    platform_promote: (input, action) =>
      command(action, 'promote', [`--receipt=${input.receiptId}`, `--dir=${directoryOf(input.directory)}`, ...option('control-url', input.controlUrl)], []),
    platform_auth_status: (input, action) => command(action, 'auth', [...option('control-url', input.controlUrl)], ['status']),
    async platform_inspect(input, action) {
      const production = productionTarget(input.previewUrl);
      if (production) {
        throw new Refusal('invalid_input', `previewUrl ${input.previewUrl} is the production environment of ${production}; platform_inspect reads preview only.`, 'Give the preview URL (http://app-…--preview.localhost:4310), as platform_deploy_preview printed it. Production is not read through the tool server.');
      }
      return command(action, 'inspect', [`--view=${input.view}`, '--environment=preview', ...option('after', input.after)], [input.previewUrl]);
    },
    async platform_dev_start(input, action) {
      const directory = directoryOf(input.directory);
      const view = await dev.start(directory, { host: input.host, port: input.port, share: input.share, timeoutMs: input.timeoutMilliseconds ?? 120_000 });
      return devResult(action, view);
    },
    async platform_dev_status(input, action) {
      const session = dev.get(input.sessionId);
      if (!session) throw new Refusal('unknown_session', input.sessionId ? `No dev session ${input.sessionId}.` : 'No dev session has been started.', 'Start one with platform_dev_start.');
      return devResult(action, await dev.status(session, input.cursor, input.waitMilliseconds, input.limit));
    },
    async platform_dev_stop(input, action) {
      const session = dev.get(input.sessionId);
      if (!session) throw new Refusal('unknown_session', input.sessionId ? `No dev session ${input.sessionId}.` : 'No dev session has been started.', 'Start one with platform_dev_start.');
      return devResult(action, await dev.stop(session, input.cursor));
    },
    platform_diagnostics: (input, action) => command(action, 'diagnostics', [], [input.code]),
  };

  async function call(name: string, args: unknown): Promise<McpResult> {
    const action = name.startsWith('platform_') ? name.slice('platform_'.length) : name;
    try {
      if (options.pinnedVersion !== undefined && options.pinnedVersion !== version) {
        throw new Refusal('version_mismatch', `This configuration was written by platform ${options.pinnedVersion}; this tool server is ${version}.`, 'Run platform agent setup with the platform you mean to use, so the configuration and the server agree.');
      }
      const tool = tools.find((t) => t.name === name);
      if (!tool) {
        if (TOOL_INPUTS[name as ToolName]) throw new Refusal('operator_only', `${name} is in the operator profile only.`, 'A person enables it in the server\'s configuration (PLATFORM_MCP_PROFILE=operator); no tool argument can.');
        const reason = forbiddenReason(name);
        if (reason) throw new Refusal('forbidden_action', `${name} is not exposed to agents. ${reason}`);
        throw new Refusal('unknown_tool', `There is no tool ${name}.`, `Tools: ${tools.map((t) => t.name).join(', ')}.`);
      }
      const parsed = TOOL_INPUTS[name as ToolName].safeParse(args ?? {});
      if (!parsed.success) {
        const message = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'input'}: ${i.message}`).join('; ');
        throw new Refusal('invalid_input', `Invalid input for ${name}: ${message}.`, 'See the tool\'s input schema (tools/list).');
      }
      return await (handlers[name as ToolName] as (input: unknown, action: string) => Promise<McpResult>)(parsed.data, action);
    } catch (error) {
      if (error instanceof Refusal) return refusedResult(action, error);
      const message = error instanceof Error ? error.message : String(error);
      return commandResult(action, envelope(action, [diagnostic('DG0000', `The tool ${name} crashed before producing a result: ${message}`)]));
    }
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      description: `${tool.summary} Safety: ${tool.safety}.`,
      inputSchema: inputJsonSchema(tool.name as ToolName),
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

function devResult(action: string, view: Awaited<ReturnType<DevSessions['start']>>): McpResult {
  const failed = view.envelope && !view.envelope.ok;
  if (failed) return commandResult(action, view.envelope!, { session: { ...view, envelope: undefined } });
  return { protocol: MCP_RESULT_PROTOCOL, action, ok: true, result: { session: view } };
}
