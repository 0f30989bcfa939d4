/**
 * The fifteen agent tools of tooling.md, one record each: name, safety class, profile, the command it runs,
 * summary, input schema and what a call does. The tool server (src/mcp/server.ts) registers and runs
 * them; the actions catalogue (`platform actions`, ./actions.ts) lists them. Adding a tool is adding a
 * record here.
 */
// zod is given to each record's `input` rather than imported: it takes about 100 ms to load in Node, and
// every CLI command and the playground's compiler worker load these records (`platform actions`); only
// the tool server builds the schemas.
import type { z } from 'zod';
import { hostedTarget } from '../deploy/index.ts';
import type { CommandEnvelope } from '../diagnostics/index.ts';
import { commandResult, okResult, refusedResult, ToolRefusal, type McpResult } from './agent-tool-result.ts';

/**
 * What running an action can change, from least to most:
 * `read` reads only; `local-write` writes project files or generated state under `.platform/`;
 * `local-run` runs the app's code on this machine; `preview` changes the hosted preview;
 * `production` changes what production serves; `destructive` removes data or apps;
 * `secret` reads or writes credentials, tokens or environment values.
 */
export type SafetyClass = 'read' | 'local-write' | 'local-run' | 'preview' | 'production' | 'destructive' | 'secret';

export type Profile = 'author' | 'operator';

type Zod = typeof z;

/** A `platform dev --json` session as the dev tools answer it. */
export interface DevSessionView {
  sessionId: string;
  directory: string;
  state: 'starting' | 'serving' | 'exited';
  /** The discovery URL of the last preview.ready or server.restarted event. */
  url?: string;
  events: unknown[];
  /** The cursor to pass next time: the index after the last event returned. */
  cursor: number;
  /** Events after the cursor that were not returned (over `limit`). */
  more: boolean;
  exitCode?: number | null;
  /** The command's envelope once it exited: its own, or DG0000 when it printed none. */
  envelope?: CommandEnvelope;
}

/** The dev sessions the tool server keeps (src/mcp/dev-sessions.ts); a session is the server's own object. */
export interface DevSessionsHost {
  start(directory: string, options: { host?: string; port?: number; share?: boolean; timeoutMs: number }): Promise<DevSessionView>;
  /** The session named, or the latest one started. */
  get(sessionId: string | undefined): object | undefined;
  status(session: object, cursor: number, waitMs: number, limit: number): Promise<DevSessionView>;
  stop(session: object, cursor: number): Promise<DevSessionView>;
}

/** What the tool server gives a tool's run. */
export interface ToolContext {
  /** The tool's name without `platform_`: the `action` of its result. */
  action: string;
  /** A directory argument confined to the root; throws the `outside_root` refusal when it leads out. */
  directory(given: string | undefined): string;
  /** Runs `platform <name> <options> --json -- <positionals>` through the core: its result keeps the envelope. */
  command(name: string, options: string[], positionals: string[]): Promise<McpResult>;
  docs: { search(query: string, limit: number): object };
  dev: DevSessionsHost;
}

/** One agent tool. */
export interface AgentTool<Name extends string = string, Input extends z.ZodType = z.ZodType> {
  name: Name;
  safety: SafetyClass;
  /** The lowest profile that has it: author tools are in both. */
  profile: Profile;
  /** The CLI command it runs through the core, when it runs one. */
  command?: string;
  summary: string;
  /** Its input, exactly as tooling.md's table gives it (ranges, enums, defaults); unknown properties are refused. */
  input(zod: Zod): Input;
  /** Answers a call whose input parsed; a `ToolRefusal` thrown is answered as that refusal. */
  run(input: z.output<Input>, tool: ToolContext): Promise<McpResult>;
}

function defineTool<const Name extends string, Input extends z.ZodType>(tool: AgentTool<Name, Input>): AgentTool<Name, Input> {
  return tool;
}

const IPV4_PART = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])';
const IPV4 = new RegExp(`^(?:${IPV4_PART}\\.){3}${IPV4_PART}$`);

/**
 * Whether `platform dev` listening there serves this machine only: `localhost`, 127.0.0.0/8 or ::1. A
 * dev server's visitors act as the chosen persona, so an agent may not open one to the network.
 * (Node's `isIPv4` pattern, and the URL parser for IPv6: the core has no `node:net`.)
 */
export function isLoopbackHost(value: string): boolean {
  if (value.toLowerCase() === 'localhost') return true;
  if (IPV4.test(value)) return value.split('.')[0] === '127';
  if (!value.includes(':')) return false;
  try {
    return new URL(`http://[${value}]`).hostname === '[::1]';
  } catch {
    return false;
  }
}

const directory = (zod: Zod) => zod.string().min(1).optional().describe('The project directory, relative to the tool server\'s root (default: the root).');
const controlUrl = (zod: Zod) => zod.string().min(1).optional().describe(
  'The control plane\'s origin (default: PLATFORM_CONTROL_URL or the local default). A credential is sent only to its own origin: PLATFORM_SERVICE_TOKEN to PLATFORM_CONTROL_URL\'s, a builder session to the origin it was signed in to; any other origin is DG5002 and is sent nothing.',
);
const dirOnly = (zod: Zod) => zod.object({ directory: directory(zod) }).strict();

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

function sessionOf(dev: DevSessionsHost, sessionId: string | undefined): object {
  const session = dev.get(sessionId);
  if (!session) throw new ToolRefusal('unknown_session', sessionId ? `No dev session ${sessionId}.` : 'No dev session has been started.', 'Start one with platform_dev_start.');
  return session;
}

function devResult(action: string, view: DevSessionView): McpResult {
  const failed = view.envelope && !view.envelope.ok;
  if (failed) return commandResult(action, view.envelope!, { session: { ...view, envelope: undefined } });
  return okResult(action, { session: view });
}

/** The fifteen tools, in the catalogue's order: fourteen in the author profile, promote in the operator profile only. */
export const AGENT_TOOLS = [
  defineTool({
    name: 'platform_check', safety: 'read', profile: 'author', command: 'check',
    summary: 'Validate the manifest, both source graphs, the server definition and the types.',
    input: dirOnly,
    run: (input, tool) => tool.command('check', [], [tool.directory(input.directory)]),
  }),
  defineTool({
    name: 'platform_build', safety: 'local-write', profile: 'author', command: 'build',
    summary: 'Build a verified, content-addressed artifact under .platform/.',
    input: dirOnly,
    run: (input, tool) => tool.command('build', [], [tool.directory(input.directory)]),
  }),
  defineTool({
    name: 'platform_test', safety: 'local-run', profile: 'author', command: 'test',
    summary: 'Build, type-check and run tests/**/*.test.ts, each test against fresh isolated state.',
    input: (zod) => zod.object({ directory: directory(zod), timeoutMilliseconds: zod.number().int().min(1000).max(1_800_000).optional() }).strict(),
    async run(input, tool) {
      const run = tool.command('test', [], [tool.directory(input.directory)]);
      const limit = input.timeoutMilliseconds;
      if (limit === undefined) return run;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<McpResult>((done) => {
        timer = setTimeout(() => done(refusedResult(tool.action, new ToolRefusal('timeout', `platform test did not finish within ${limit} ms.`, 'Give a larger timeoutMilliseconds, or run fewer tests.'))), limit);
      });
      try {
        return await Promise.race([run, timedOut]);
      } finally {
        clearTimeout(timer);
      }
    },
  }),
  defineTool({
    name: 'platform_new', safety: 'local-write', profile: 'author', command: 'new',
    summary: 'Create an app from a bundled template in an empty or new directory.',
    input: (zod) => zod.object({
      directory: zod.string().min(1).describe('Where to create the app (empty or absent), relative to the root.'),
      template: zod.string().min(1).optional(),
      framework: zod.string().min(1).optional(),
      ui: zod.enum(['preact', 'react']).optional(),
    }).strict(),
    run: (input, tool) =>
      tool.command('new', [...option('template', input.template), ...option('framework', input.framework), ...option('ui', input.ui)], [tool.directory(input.directory)]),
  }),
  defineTool({
    name: 'platform_agent_context', safety: 'read', profile: 'author', command: 'agent',
    summary: 'Normalized project facts (platform.agent-context.v0); writes nothing.',
    input: dirOnly,
    run: (input, tool) => tool.command('agent', [], ['context', tool.directory(input.directory)]),
  }),
  defineTool({
    name: 'platform_docs_search', safety: 'read', profile: 'author',
    summary: 'Rank the platform documentation for a query (platform.docs-search.v0).',
    input: (zod) => zod.object({ query: zod.string().min(1), limit: zod.number().int().min(1).max(20).default(5) }).strict(),
    run: async (input, tool) => okResult(tool.action, { ...tool.docs.search(input.query, input.limit) }),
  }),
  defineTool({
    name: 'platform_doctor', safety: 'read', profile: 'author', command: 'doctor',
    summary: 'Check the toolchain and the generated state.',
    input: dirOnly,
    run: (input, tool) => tool.command('doctor', [], [tool.directory(input.directory)]),
  }),
  defineTool({
    name: 'platform_deploy_preview', safety: 'preview', profile: 'author', command: 'deploy',
    summary: 'Build and deploy to the preview environment (never production).',
    input: (zod) => zod.object({ directory: directory(zod), controlUrl: controlUrl(zod) }).strict(),
    run: (input, tool) => tool.command('deploy', ['--environment=preview', ...option('control-url', input.controlUrl)], [tool.directory(input.directory)]),
  }),
  defineTool({
    name: 'platform_promote', safety: 'production', profile: 'operator', command: 'promote',
    summary: 'Promote the artifact of an exact review receipt to production.',
    input: (zod) => zod.object({
      directory: directory(zod),
      receiptId: zod.string().min(1).describe('The exact review receipt id (review_…) of the preview deployment to promote.'),
      controlUrl: controlUrl(zod),
    }).strict(),
    run: (input, tool) => tool.command('promote', [`--receipt=${input.receiptId}`, `--dir=${tool.directory(input.directory)}`, ...option('control-url', input.controlUrl)], []),
  }),
  defineTool({
    name: 'platform_auth_status', safety: 'read', profile: 'author', command: 'auth',
    summary: 'Who is signed in to the control plane (never signs in).',
    input: (zod) => zod.object({ controlUrl: controlUrl(zod) }).strict(),
    run: (input, tool) => tool.command('auth', [...option('control-url', input.controlUrl)], ['status']),
  }),
  defineTool({
    name: 'platform_inspect', safety: 'read', profile: 'author', command: 'inspect',
    summary: 'Read a preview URL\'s views: manifest, state, logs or export.',
    input: (zod) => zod.object({
      previewUrl: zod.string().min(1).describe('The preview URL platform_deploy_preview printed (http://app-…--preview.localhost:4310), an appId or an app\'s name: always its preview environment, never production.'),
      view: zod.enum(['manifest', 'state', 'logs', 'export']).default('manifest'),
      after: zod.string().min(1).optional(),
    }).strict(),
    async run(input, tool) {
      const production = productionTarget(input.previewUrl);
      if (production) {
        throw new ToolRefusal('invalid_input', `previewUrl ${input.previewUrl} is the production environment of ${production}; platform_inspect reads preview only.`, 'Give the preview URL (http://app-…--preview.localhost:4310), as platform_deploy_preview printed it. Production is not read through the tool server.');
      }
      return tool.command('inspect', [`--view=${input.view}`, '--environment=preview', ...option('after', input.after)], [input.previewUrl]);
    },
  }),
  defineTool({
    name: 'platform_dev_start', safety: 'local-run', profile: 'author', command: 'dev',
    summary: 'Start a platform dev session and wait for it to serve.',
    input: (zod) => zod.object({
      directory: directory(zod),
      host: zod.string().min(1).refine(isLoopbackHost, 'must be a loopback address (localhost, 127.0.0.0/8 or ::1): the tool server does not open a dev server to the network').optional()
        .describe('The loopback address to listen on (default 127.0.0.1).'),
      port: zod.number().int().min(0).max(65535).optional(),
      share: zod.boolean().optional(),
      timeoutMilliseconds: zod.number().int().min(1000).max(600_000).optional(),
    }).strict(),
    async run(input, tool) {
      const view = await tool.dev.start(tool.directory(input.directory), { host: input.host, port: input.port, share: input.share, timeoutMs: input.timeoutMilliseconds ?? 120_000 });
      return devResult(tool.action, view);
    },
  }),
  defineTool({
    name: 'platform_dev_status', safety: 'read', profile: 'author',
    summary: 'Read a dev session\'s events after a cursor, long-polling up to waitMilliseconds.',
    input: (zod) => zod.object({
      sessionId: zod.string().min(1).optional(),
      cursor: zod.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
      waitMilliseconds: zod.number().int().min(0).max(600_000).default(0),
      limit: zod.number().int().min(1).max(1000).default(200),
    }).strict(),
    run: async (input, tool) => devResult(tool.action, await tool.dev.status(sessionOf(tool.dev, input.sessionId), input.cursor, input.waitMilliseconds, input.limit)),
  }),
  defineTool({
    name: 'platform_dev_stop', safety: 'local-run', profile: 'author',
    summary: 'Stop a dev session and read its last events.',
    input: (zod) => zod.object({ sessionId: zod.string().min(1).optional(), cursor: zod.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0) }).strict(),
    run: async (input, tool) => devResult(tool.action, await tool.dev.stop(sessionOf(tool.dev, input.sessionId), input.cursor)),
  }),
  defineTool({
    name: 'platform_diagnostics', safety: 'read', profile: 'author', command: 'diagnostics',
    summary: 'Explain a diagnostic code: what it means and how to repair it.',
    input: (zod) => zod.object({ code: zod.string().min(1) }).strict(),
    run: (input, tool) => tool.command('diagnostics', [], [input.code]),
  }),
] as const;

export type ToolName = (typeof AGENT_TOOLS)[number]['name'];

/** The tools a profile serves. */
export function toolsOf(profile: Profile): Array<AgentTool<ToolName>> {
  return AGENT_TOOLS.filter((tool) => profile === 'operator' || tool.profile === 'author');
}
