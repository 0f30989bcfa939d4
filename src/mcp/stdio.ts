/** `platform mcp`: the tool server on this process's stdin and stdout, configured by PLATFORM_MCP_ROOT, PLATFORM_MCP_PROFILE and PLATFORM_MCP_VERSION. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { resolve } from 'node:path';
import type { CommandHost } from '../core/commands';
import { createAgentServer } from './server';

type Writer = { write(text: string): unknown };

export interface StdioOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  version: string;
  /** Where the commands' printed lines go: stdout carries the protocol. */
  stderr: Writer;
  /** The host the commands run with, rooted at `cwd` and printing to `stdout` (the CLI's nodeHost, given by it). */
  host(options: { cwd: string; stdout: Writer }): CommandHost;
}

/** Serves until the client closes stdin; dev sessions it started are stopped on the way out. */
export async function serveStdio({ cwd, env, version, stderr, host: hostAt }: StdioOptions): Promise<void> {
  const root = resolve(cwd, env.PLATFORM_MCP_ROOT || '.');
  const profile = env.PLATFORM_MCP_PROFILE === 'operator' ? 'operator' : 'author';
  // Commands print nothing: stdout carries the protocol, and a streaming command's lines are collected instead.
  const quiet = { write: (text: string) => stderr.write(text) };
  const { print: _unused, ...host } = hostAt({ cwd: root, stdout: quiet });
  const { server, close } = createAgentServer({
    root, profile, version, host, env: env as NodeJS.ProcessEnv,
    ...(env.PLATFORM_MCP_VERSION ? { pinnedVersion: env.PLATFORM_MCP_VERSION } : {}),
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((done) => {
    transport.onclose = () => done();
    process.stdin.once('end', () => done());
  });
  await server.connect(transport);
  await closed;
  await close();
  await server.close();
}
