/** For the tool server's tests: `platform mcp` as a real child process, driven by the SDK's own client over stdio. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpResult } from '../mcp/server';
import { cliCommand } from './cli';

/** Long enough for a build or a test run on a loaded machine; a limit, not an expectation. */
const CALL_LIMIT = { timeout: 600_000 };

export interface McpSession {
  client: Client;
  /** Calls a tool and returns its platform.mcp-result.v0, checking the MCP result agrees with it. */
  call(name: string, args?: Record<string, unknown>): Promise<McpResult>;
  stderr(): string;
  close(): Promise<void>;
}

export async function startMcp(root: string, env: Record<string, string> = {}): Promise<McpSession> {
  const base = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith('PLATFORM_')));
  const { command, args } = cliCommand(['mcp']);
  const transport = new StdioClientTransport({ command, args, cwd: root, env: { ...base, PLATFORM_MCP_ROOT: root, ...env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'platform-test', version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    async call(name, args = {}) {
      const answer = await client.callTool({ name, arguments: args }, undefined, CALL_LIMIT);
      const result = answer.structuredContent as unknown as McpResult;
      const text = (answer.content as Array<{ type: string; text: string }>)[0]!.text;
      if (JSON.stringify(JSON.parse(text)) !== JSON.stringify(result) || Boolean(answer.isError) === result.ok) throw new Error(`the MCP result disagrees with its platform.mcp-result.v0: ${text}`);
      return result;
    },
    stderr: () => stderr,
    close: () => client.close(),
  };
}
