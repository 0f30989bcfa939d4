/**
 * The tool server's `tools/list` and the actions catalogue come from the same records
 * (src/core/commands/agent-tools.ts): every record is in both, nothing else is, and what each shows of a
 * tool is its record's. In process, over the SDK's in-memory transport.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { isIPv4, isIPv6 } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type CommandHost, actionsDocument, COMMAND_ACTIONS, AGENT_TOOLS, isLoopbackHost, type Profile } from '../core/commands';
import { createAgentServer } from './server';

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((close) => close()));
});

async function listTools(profile: Profile) {
  // Listing runs no command: the host is never reached.
  const { server, close } = createAgentServer({ root: import.meta.dirname, profile, version: '0.0.0', host: {} as CommandHost, env: {} });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'platform-test', version: '0.0.0' });
  await client.connect(clientSide);
  opened.push(async () => {
    await client.close();
    await close();
  });
  return (await client.listTools()).tools;
}

describe('one record per agent tool', () => {
  it('tools/list (operator) and the catalogue list exactly the records, in their order', async () => {
    const records = AGENT_TOOLS.map((t) => t.name);
    expect(new Set(records).size).toBe(records.length);
    expect((await listTools('operator')).map((t) => t.name)).toEqual(records);
    expect(actionsDocument('0.0.0').tools.map((t) => t.name)).toEqual(records);
  });

  it('the author profile lists exactly the author records', async () => {
    expect((await listTools('author')).map((t) => t.name)).toEqual(AGENT_TOOLS.filter((t) => t.profile === 'author').map((t) => t.name));
  });

  it('what tools/list and the catalogue show of a tool is its record', async () => {
    const listed = await listTools('operator');
    const catalogue = actionsDocument('0.0.0').tools;
    for (const record of AGENT_TOOLS) {
      const tool = listed.find((t) => t.name === record.name)!;
      expect(tool.description).toBe(`${record.summary} Safety: ${record.safety}.`);
      expect(tool.annotations?.readOnlyHint).toBe(record.safety === 'read');
      const { $schema: _drop, ...schema } = z.toJSONSchema(record.input(z), { io: 'input' }) as Record<string, unknown>;
      expect(tool.inputSchema).toEqual({ ...schema, type: 'object' });
      expect(catalogue.find((t) => t.name === record.name)).toEqual({
        name: record.name, safety: record.safety, profile: record.profile, ...(record.command ? { command: record.command } : {}), summary: record.summary,
      });
    }
  });

  it('a command\'s tool is the record that runs it, and every such record is named by its command', () => {
    for (const c of COMMAND_ACTIONS) {
      const runs = AGENT_TOOLS.filter((t) => t.command === c.name).map((t) => t.name);
      expect(c.tool === undefined ? [] : [c.tool], c.name).toEqual(runs);
    }
    for (const record of AGENT_TOOLS) if (record.command) expect(COMMAND_ACTIONS.map((c) => c.name)).toContain(record.command);
  });
});

describe('isLoopbackHost without node:net', () => {
  /** The check as it was written with Node's address parsers, before the records moved into the core. */
  const withNode = (value: string) =>
    value.toLowerCase() === 'localhost' || (isIPv4(value) ? value.split('.')[0] === '127' : isIPv6(value) && new URL(`http://[${value}]`).hostname === '[::1]');

  it('agrees with Node\'s parsers', () => {
    const hosts = [
      'localhost', 'LocalHost', '127.0.0.1', '127.255.255.254', '127.01.0.1', '127.0.0.256', '128.0.0.1', '0.0.0.0', '127.1', ' 127.0.0.1',
      '::1', '0:0:0:0:0:0:0:1', '0::1', '::0001', '::0.0.0.1', '::ffff:127.0.0.1', '::', '::2', '[::1]', 'fe80::1', 'example.com', 'evil.localhost', '',
    ];
    for (const host of hosts) expect(isLoopbackHost(host), host).toBe(withNode(host));
  });

  it('refuses an IPv6 zone, which the URL parser does not take (it crashed the call before)', () => {
    expect(isLoopbackHost('::1%lo')).toBe(false);
  });
});
