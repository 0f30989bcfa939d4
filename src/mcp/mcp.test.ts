/**
 * `platform mcp` as an agent meets it: a real child process driven by the SDK's own client over stdio,
 * on a copy of the todo template. It lists 14 tools (author) and 15 (operator), validates inputs as
 * tooling.md's table says, calls every tool, reads every resource, and refuses directories outside
 * PLATFORM_MCP_ROOT (by `..`, absolute path or symlink) and the actions no agent may take.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_ACTIONS } from '../core/commands';
import { startMcp, type McpSession } from '../testing/mcp-client';

/** A code outside the catalogue, spelt at run time so the catalogue test's scan for codes used in src/ does not count it. */
const NOT_A_CODE = ['DG', '9999'].join('');

const ROOT = join(import.meta.dirname, '../..');
const AUTHOR_TOOLS = [
  'platform_agent_context', 'platform_auth_status', 'platform_build', 'platform_check', 'platform_deploy_preview', 'platform_dev_start', 'platform_dev_status',
  'platform_dev_stop', 'platform_diagnostics', 'platform_docs_search', 'platform_doctor', 'platform_inspect', 'platform_new', 'platform_test',
];

let work: string;
let app: string;
let outside: string;
let author: McpSession;
let operator: McpSession;

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'platform-mcp-')));
  app = join(work, 'app');
  outside = join(work, 'outside');
  cpSync(join(ROOT, 'templates/todo'), app, { recursive: true });
  mkdirSync(outside);
  symlinkSync(outside, join(app, 'escape'));
  const env = { PLATFORM_CONFIG_DIR: join(work, 'config'), PLATFORM_CONTROL_URL: 'http://localhost:9' };
  [author, operator] = await Promise.all([startMcp(app, env), startMcp(app, { ...env, PLATFORM_MCP_PROFILE: 'operator' })]);
}, 60_000);

afterAll(async () => {
  await Promise.all([author?.close(), operator?.close()]);
  rmSync(work, { recursive: true, force: true });
});

describe('platform mcp over stdio', () => {
  it('lists the 14 author tools, and 15 with promote only when the server is configured as operator', async () => {
    const listed = (await author.client.listTools()).tools.map((t) => t.name).sort();
    expect(listed).toEqual(AUTHOR_TOOLS);
    const operatorTools = (await operator.client.listTools()).tools.map((t) => t.name).sort();
    expect(operatorTools).toEqual([...AUTHOR_TOOLS, 'platform_promote'].sort());
    expect(TOOL_ACTIONS.map((t) => t.name).sort()).toEqual(operatorTools);
    // The input table's ranges are in the schemas a client is shown.
    const status = (await author.client.listTools()).tools.find((t) => t.name === 'platform_dev_status')!;
    expect(status.inputSchema.properties).toMatchObject({
      cursor: { type: 'integer', minimum: 0, maximum: 9007199254740991, default: 0 },
      waitMilliseconds: { type: 'integer', minimum: 0, maximum: 600000, default: 0 },
      limit: { type: 'integer', minimum: 1, maximum: 1000, default: 200 },
    });
  });

  it('promote is refused to an author whatever the arguments say', async () => {
    const refused = await author.call('platform_promote', { receiptId: 'review_01234567890123456789012345', profile: 'operator' });
    expect(refused).toMatchObject({ protocol: 'platform.mcp-result.v0', action: 'promote', ok: false, error: { code: 'operator_only' } });
    // The operator's promote needs an exact receipt: a malformed one is refused by the command before any request.
    const malformed = await operator.call('platform_promote', { receiptId: 'review_short' });
    expect(malformed).toMatchObject({ ok: false, error: { code: 'DG5176' }, result: { envelope: { protocol: 'platform.command.v0', command: 'promote' } } });
    expect(await operator.call('platform_promote', {})).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('validates every input as the table says: ranges, enums, defaults, no unknown properties', async () => {
    const invalid = [
      ['platform_docs_search', { query: 'x', limit: 21 }],
      ['platform_docs_search', { query: 'x', limit: 0 }],
      ['platform_docs_search', { limit: 3 }],
      ['platform_test', { timeoutMilliseconds: 999 }],
      ['platform_test', { timeoutMilliseconds: 1_800_001 }],
      ['platform_new', { template: 'todo' }],
      ['platform_new', { directory: 'x', ui: 'vue' }],
      ['platform_inspect', { previewUrl: 'http://localhost:1', view: 'secrets' }],
      ['platform_dev_start', { port: 65536 }],
      ['platform_dev_start', { timeoutMilliseconds: 600_001 }],
      ['platform_dev_status', { cursor: -1 }],
      ['platform_dev_status', { waitMilliseconds: 600_001 }],
      ['platform_dev_status', { limit: 1001 }],
      ['platform_dev_status', { limit: 1.5 }],
      ['platform_diagnostics', {}],
      ['platform_deploy_preview', { environment: 'production' }],
      ['platform_check', { directory: 'app', force: true }],
    ] as const;
    for (const [name, args] of invalid) {
      const result = await author.call(name, args as Record<string, unknown>);
      expect(result, `${name} ${JSON.stringify(args)}`).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    }
    const defaults = await author.call('platform_docs_search', { query: 'diagnostic code' });
    expect(defaults.ok).toBe(true);
    expect((defaults.result as { results: unknown[] }).results).toHaveLength(5);
  });

  it('refuses directories outside the root: .., absolute paths and symlinks', async () => {
    for (const directory of ['..', '../outside', outside, '/etc', 'escape', 'escape/sub', 'src/../../outside']) {
      for (const tool of ['platform_check', 'platform_build', 'platform_agent_context', 'platform_doctor', 'platform_dev_start', 'platform_deploy_preview']) {
        const result = await author.call(tool, { directory });
        expect(result, `${tool} ${directory}`).toMatchObject({ ok: false, error: { code: 'outside_root' } });
      }
    }
    expect(await author.call('platform_new', { directory: 'escape/new-app' })).toMatchObject({ ok: false, error: { code: 'outside_root' } });
    expect(await operator.call('platform_promote', { directory: '..', receiptId: 'review_01234567890123456789012345' })).toMatchObject({ ok: false, error: { code: 'outside_root' } });
    expect(existsSync(join(outside, 'new-app'))).toBe(false);
  });

  it('reaches no destructive, production-changing or secret-reading action', async () => {
    for (const name of ['platform_deploy', 'platform_delete', 'platform_state_reset', 'platform_import', 'platform_env', 'platform_env_pull', 'platform_token', 'platform_token_create', 'platform_auth_login', 'platform_rollback', 'platform_domains']) {
      for (const session of [author, operator]) {
        expect(await session.call(name, {}), name).toMatchObject({ ok: false, error: { code: 'forbidden_action' } });
      }
    }
    expect(await author.call('platform_nonsense', {})).toMatchObject({ ok: false, error: { code: 'unknown_tool' } });
    // A value that looks like an option stays a value: it cannot become --environment prod.
    const sneaky = await author.call('platform_new', { directory: 'sneaky', template: 'todo --environment=prod' });
    expect(sneaky).toMatchObject({ ok: false, error: { code: 'DG3002' } });
  });

  it('calls every command tool on the template copy and keeps each envelope at result.envelope', async () => {
    const check = await author.call('platform_check', {});
    expect(check).toMatchObject({ action: 'check', ok: true, result: { envelope: { protocol: 'platform.command.v0', command: 'check', ok: true, result: { name: 'todo' } } } });
    expect(check.error).toBeUndefined();

    const context = await author.call('platform_agent_context', { directory: '.' });
    expect(context).toMatchObject({ ok: true, result: { envelope: { result: { protocol: 'platform.agent-context.v0', manifest: { name: 'todo' }, tests: ['tests/todos.test.ts'] } } } });

    const built = await author.call('platform_build', {});
    expect(built).toMatchObject({ ok: true, result: { envelope: { command: 'build', result: { artifactId: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) } } } });

    const tested = await author.call('platform_test', { timeoutMilliseconds: 1_800_000 });
    expect(tested).toMatchObject({ ok: true, result: { envelope: { command: 'test', ok: true } } });

    const doctor = await author.call('platform_doctor', {});
    expect(doctor).toMatchObject({ ok: true, result: { envelope: { command: 'doctor', result: { checks: expect.arrayContaining([expect.objectContaining({ name: 'workerd', ok: true }), expect.objectContaining({ name: 'build', ok: true })]) } } } });

    const explained = await author.call('platform_diagnostics', { code: 'DG1003' });
    expect(explained).toMatchObject({ ok: true, result: { envelope: { result: { code: 'DG1003', area: 'manifest' } } } });
    expect(await author.call('platform_diagnostics', { code: NOT_A_CODE })).toMatchObject({ ok: false, error: { code: 'DG0002' } });

    const created = await author.call('platform_new', { directory: 'scratch/fresh', template: 'endpoints' });
    expect(created).toMatchObject({ ok: true, result: { envelope: { command: 'new', result: { template: 'endpoints' } } } });
    expect(existsSync(join(app, 'scratch/fresh/app.manifest.json'))).toBe(true);
    expect(await author.call('platform_new', { directory: 'scratch/fresh' })).toMatchObject({ ok: false, error: { code: 'DG3001' } });

    // No builder credential in this configuration: deploying and asking who is signed in say so (DG5002).
    expect(await author.call('platform_deploy_preview', {})).toMatchObject({ ok: false, error: { code: 'DG5002' }, result: { envelope: { command: 'deploy' } } });
    expect(await author.call('platform_auth_status', {})).toMatchObject({ ok: false, error: { code: 'DG5002' }, result: { envelope: { command: 'auth' } } });

    const inspected = await author.call('platform_inspect', { previewUrl: 'http://app-x--preview.localhost:9', view: 'state' });
    expect(inspected).toMatchObject({ action: 'inspect', result: { envelope: { protocol: 'platform.command.v0', command: 'inspect' } } });
    // Nothing is served there and no builder is signed in: the command's own refusal (an inspector or auth code) comes back whole.
    expect(inspected).toMatchObject({ ok: false, error: { code: expect.stringMatching(/^DG(20|50)\d\d$/) } });

    // A .platform linking outside the project is refused by the file system: the command's own DG1813, nothing written there.
    const linked = join(app, 'scratch/linked');
    cpSync(join(ROOT, 'templates/endpoints'), linked, { recursive: true });
    symlinkSync(outside, join(linked, '.platform'), 'dir');
    const refused = await author.call('platform_build', { directory: 'scratch/linked' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'DG1813' }, result: { envelope: { protocol: 'platform.command.v0', command: 'build', ok: false, diagnostics: [{ code: 'DG1813', severity: 'error' }] } } });
    expect(existsSync(join(outside, 'latest.json'))).toBe(false);
    // A command that crashes before its envelope (a file where the .platform folder goes: ENOTDIR) is DG0000.
    const blocked = join(app, 'scratch/blocked');
    cpSync(join(ROOT, 'templates/endpoints'), blocked, { recursive: true });
    writeFileSync(join(blocked, '.platform'), 'not a folder');
    const crashed = await author.call('platform_build', { directory: 'scratch/blocked' });
    expect(crashed).toMatchObject({ ok: false, error: { code: 'DG0000' }, result: { envelope: { protocol: 'platform.command.v0', command: 'build', ok: false, diagnostics: [{ code: 'DG0000', severity: 'error' }] } } });
  }, 900_000);

  it('drives a dev session through its events by cursor', async () => {
    expect(await author.call('platform_dev_status', {})).toMatchObject({ ok: false, error: { code: 'unknown_session' } });
    const started = await author.call('platform_dev_start', { port: 0, timeoutMilliseconds: 600_000 });
    expect(started).toMatchObject({ ok: true, result: { session: { state: 'serving', url: expect.stringMatching(/^http:\/\//) } } });
    const session = (started.result as { session: { sessionId: string; cursor: number; events: Array<{ kind: string }> } }).session;
    expect(session.events.map((e) => e.kind)).toContain('preview.ready');
    const status = await author.call('platform_dev_status', { sessionId: session.sessionId, cursor: session.cursor, waitMilliseconds: 0 });
    expect(status).toMatchObject({ ok: true, result: { session: { state: 'serving', events: [], cursor: session.cursor } } });
    const again = await author.call('platform_dev_status', { sessionId: session.sessionId, cursor: 0, limit: 1 });
    expect(again).toMatchObject({ ok: true, result: { session: { cursor: 1 } } });
    expect((again.result as { session: { events: unknown[] } }).session.events).toHaveLength(1);

    // An edit rebuilds: long polls from the cursor return as soon as its events arrive.
    const file = join(app, 'src/client/main.tsx');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n// edited by the agent\n`);
    let cursor = session.cursor;
    const kinds: string[] = [];
    while (!kinds.includes('compile.ready')) {
      const polled = await author.call('platform_dev_status', { cursor, waitMilliseconds: 600_000 });
      const view = (polled.result as { session: { cursor: number; state: string; events: Array<{ kind: string }> } }).session;
      expect(view.state).toBe('serving');
      expect(view.cursor).toBeGreaterThan(cursor);
      kinds.push(...view.events.map((e) => e.kind));
      cursor = view.cursor;
    }
    expect(kinds).toContain('compile.start');

    const stopped = await author.call('platform_dev_stop', { sessionId: session.sessionId, cursor });
    expect(stopped).toMatchObject({ ok: true, result: { session: { state: 'exited' } } });
    expect(await author.call('platform_dev_start', { share: true })).toMatchObject({ ok: false, error: { code: 'DG0002' }, result: { envelope: { command: 'dev' } } });
  }, 900_000);

  it('refuses every call when the configuration was written by another version (the server is pinned to it)', async () => {
    const pinned = await startMcp(app, { PLATFORM_MCP_VERSION: '0.0.0-other' });
    try {
      expect(await pinned.call('platform_check', {})).toMatchObject({ ok: false, error: { code: 'version_mismatch' } });
    } finally {
      await pinned.close();
    }
  });

  it('reads every resource', async () => {
    const listed = (await author.client.listResources()).resources.map((r) => r.uri);
    expect(listed).toEqual(expect.arrayContaining(['platform://project/context', 'platform://project/manifest', 'platform://project/operations', 'platform://project/tests', 'platform://docs/index', 'platform://docs/cli.md']));
    const templates = (await author.client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toEqual(['platform://docs/{+path}', 'platform://diagnostics/{code}']);
    const read = async (uri: string) => (await author.client.readResource({ uri })).contents[0] as { uri: string; text: string; mimeType: string };

    expect(JSON.parse((await read('platform://project/context')).text)).toMatchObject({ protocol: 'platform.agent-context.v0', manifest: { name: 'todo' } });
    expect(JSON.parse((await read('platform://project/manifest')).text)).toMatchObject({ name: 'todo', format: 'platform.application-source.v0' });
    const operations = JSON.parse((await read('platform://project/operations')).text);
    expect(operations.mutations.map((m: { name: string }) => m.name)).toContain('todos.add');
    expect(JSON.parse((await read('platform://project/tests')).text)).toMatchObject({ tests: ['tests/todos.test.ts'] });
    const index = JSON.parse((await read('platform://docs/index')).text) as { pages: Array<{ path: string; uri: string }> };
    expect(index.pages.map((p) => p.path)).toContain('agents.md');
    const page = await read('platform://docs/agents.md');
    expect(page.mimeType).toBe('text/markdown');
    expect(page.text).toContain('platform mcp');
    expect(JSON.parse((await read('platform://diagnostics/DG3102')).text)).toMatchObject({ code: 'DG3102', area: 'agent-setup' });
    await expect(read('platform://docs/../package.json')).rejects.toThrow(/No documentation page/);
    await expect(read(`platform://diagnostics/${NOT_A_CODE}`)).rejects.toThrow(/not in the diagnostic catalogue/);
  });
});
