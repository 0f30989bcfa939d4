/** The inputs of the fifteen tools, exactly as tooling.md's table gives them (ranges, enums, defaults), as zod schemas; unknown properties are refused. */
import { z } from 'zod';

const directory = z.string().min(1).optional().describe('The project directory, relative to the tool server\'s root (default: the root).');
const controlUrl = z.string().min(1).optional().describe('The control plane\'s origin (default: PLATFORM_CONTROL_URL or the local default).');
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
    previewUrl: z.string().min(1),
    view: z.enum(['manifest', 'state', 'logs', 'export']).default('manifest'),
    after: z.string().min(1).optional(),
  }).strict(),
  platform_dev_start: z.object({
    directory,
    host: z.string().min(1).optional(),
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
