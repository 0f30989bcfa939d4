/**
 * The agent tools' input schemas, made with zod from their records (src/core/commands/agent-tools.ts),
 * and the JSON Schema an MCP client is shown for each.
 */
import { z } from 'zod';
import { AGENT_TOOLS, type ToolName } from '../core/commands';

export { isLoopbackHost } from '../core/commands';

const INPUTS = new Map<string, z.ZodType>(AGENT_TOOLS.map((tool) => [tool.name, tool.input(z)]));

/** A tool's input schema, made once. */
export function toolInput(name: ToolName): z.ZodType {
  return INPUTS.get(name)!;
}

/** The JSON Schema an MCP client is shown for a tool's input. */
export function inputJsonSchema(name: ToolName): { type: 'object'; [key: string]: unknown } {
  const { $schema: _drop, ...schema } = z.toJSONSchema(toolInput(name), { io: 'input' }) as Record<string, unknown>;
  return { ...schema, type: 'object' };
}
