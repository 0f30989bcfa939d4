/**
 * The inputs of the fifteen tools, exactly as tooling.md's table gives them (ranges, enums, defaults), as
 * zod schemas; unknown properties are refused, and so is a `host` off loopback for `platform_dev_start`.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';

/**
 * Whether `platform dev` listening there serves this machine only: `localhost`, 127.0.0.0/8 or ::1. A
 * dev server's visitors act as the chosen persona, so an agent may not open one to the network.
 */
export function isLoopbackHost(value: string): boolean {
  if (value.toLowerCase() === 'localhost') return true;
  if (isIPv4(value)) return value.split('.')[0] === '127';
  if (isIPv6(value)) return new URL(`http://[${value}]`).hostname === '[::1]';
  return false;
}

const directory = z.string().min(1).optional().describe('The project directory, relative to the tool server\'s root (default: the root).');
const controlUrl = z.string().min(1).optional().describe(
  'The control plane\'s origin (default: PLATFORM_CONTROL_URL or the local default). A credential is sent only to its own origin: PLATFORM_SERVICE_TOKEN to PLATFORM_CONTROL_URL\'s, a builder session to the origin it was signed in to; any other origin is DG5002 and is sent nothing.',
);
const dirOnly = z.object({ directory }).strict();

export const TOOL_INPUTS = {
  platform_check: dirOnly,
  platform_build: dirOnly,
  platform_doctor: dirOnly,
  platform_agent_context: dirOnly,
  platform_test: z.object({ directory, timeoutMilliseconds: z.number().int().min(1000).max(1_800_000).optional() }).strict(),
  platform_new: z.object({
    directory: z.string().min(1).describe('Where to create the app (empty or absent), relative to the root.'),
    template: z.string().min(1).optional(),
    framework: z.string().min(1).optional(),
    ui: z.enum(['preact', 'react']).optional(),
  }).strict(),
  platform_docs_search: z.object({ query: z.string().min(1), limit: z.number().int().min(1).max(20).default(5) }).strict(),
  platform_deploy_preview: z.object({ directory, controlUrl }).strict(),
  platform_promote: z.object({ directory, receiptId: z.string().min(1).describe('The exact review receipt id (review_…) of the preview deployment to promote.'), controlUrl }).strict(),
  platform_auth_status: z.object({ controlUrl }).strict(),
  platform_inspect: z.object({
    previewUrl: z.string().min(1).describe('The preview URL platform_deploy_preview printed (http://app-…--preview.localhost:4310), an appId or an app\'s name: always its preview environment, never production.'),
    view: z.enum(['manifest', 'state', 'logs', 'export']).default('manifest'),
    after: z.string().min(1).optional(),
  }).strict(),
  platform_dev_start: z.object({
    directory,
    host: z.string().min(1).refine(isLoopbackHost, 'must be a loopback address (localhost, 127.0.0.0/8 or ::1): the tool server does not open a dev server to the network').optional()
      .describe('The loopback address to listen on (default 127.0.0.1).'),
    port: z.number().int().min(0).max(65535).optional(),
    share: z.boolean().optional(),
    timeoutMilliseconds: z.number().int().min(1000).max(600_000).optional(),
  }).strict(),
  platform_dev_status: z.object({
    sessionId: z.string().min(1).optional(),
    cursor: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
    waitMilliseconds: z.number().int().min(0).max(600_000).default(0),
    limit: z.number().int().min(1).max(1000).default(200),
  }).strict(),
  platform_dev_stop: z.object({ sessionId: z.string().min(1).optional(), cursor: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0) }).strict(),
  platform_diagnostics: z.object({ code: z.string().min(1) }).strict(),
} as const;

export type ToolName = keyof typeof TOOL_INPUTS;
export type ToolInput<N extends ToolName> = z.output<(typeof TOOL_INPUTS)[N]>;

/** The JSON Schema an MCP client is shown for a tool's input. */
export function inputJsonSchema(name: ToolName): { type: 'object'; [key: string]: unknown } {
  const { $schema: _drop, ...schema } = z.toJSONSchema(TOOL_INPUTS[name], { io: 'input' }) as Record<string, unknown>;
  return { ...schema, type: 'object' };
}
