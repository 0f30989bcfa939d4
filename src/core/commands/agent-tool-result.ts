/**
 * What every agent tool answers, `platform.mcp-result.v0` (tooling.md): the result of a command tool (its
 * envelope kept whole, its first error as `error`), a refusal (`operator_only`, `outside_root`, …) and the
 * refusal a tool's run throws to give one.
 */
import { type CommandEnvelope } from '../diagnostics/index.ts';

export const MCP_RESULT_PROTOCOL = 'platform.mcp-result.v0';

export interface McpResult {
  protocol: typeof MCP_RESULT_PROTOCOL;
  action: string;
  ok: boolean;
  result?: Record<string, unknown>;
  error?: { code: string; message: string; hint?: string; [key: string]: unknown };
}

/** The error that answers a refused call: not an exception, a result the agent can dispatch on. */
export class ToolRefusal extends Error {
  constructor(readonly code: string, message: string, readonly hint?: string) {
    super(message);
  }
}

export function refusedResult(action: string, error: ToolRefusal): McpResult {
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

/** A successful result that is not a command's. */
export function okResult(action: string, result: Record<string, unknown>): McpResult {
  return { protocol: MCP_RESULT_PROTOCOL, action, ok: true, result };
}
