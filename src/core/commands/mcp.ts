/** `platform mcp`: the agent tool server on stdio, served by the host (only the Node CLI can). */
import { diagnostic, envelope } from '../diagnostics/index.ts';
import type { CommandDefinition } from './types.ts';

export const mcp: CommandDefinition = {
  name: 'mcp',
  summary: 'Serve the agent tool server (Model Context Protocol) on stdio; PLATFORM_MCP_ROOT confines it, PLATFORM_MCP_PROFILE=operator adds promote.',
  positionals: [],
  options: {},
  // stdout carries the protocol: nothing else may be printed on it.
  streams: true,
  async run(_invocation, host) {
    if (!host.agent) {
      return envelope('mcp', [diagnostic('DG0001', 'This host cannot serve the agent tool server.', { hint: 'Run platform mcp with the platform CLI in Node.' })]);
    }
    await host.agent.serve();
    return envelope('mcp', []);
  },
};
