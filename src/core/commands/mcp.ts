/** `platform mcp`: the agent tool server on stdio, served by the host (only the Node CLI can). */
import { diagnostic, envelope } from '../diagnostics';
import type { CommandDefinition } from './types';

/** One check only the host can make (the Node version, the workerd and esbuild binaries). */
export interface ToolchainCheck {
  name: string;
  ok: boolean;
  /** What was found, or what is wrong and how to fix it. */
  detail: string;
}

/** What only a Node host does for the agent commands. */
export interface AgentHost {
  /** Serves the tool server over this process's stdin and stdout until the client closes them. */
  serve(): Promise<void>;
  /** The toolchain checks of `platform doctor`. */
  toolchain(): Promise<ToolchainCheck[]>;
}

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
