/**
 * docs/agents.md's worked session, run for real: a person signs in with a device code approved on a
 * control plane on loopback; an agent, through `platform mcp` driven by the SDK's client over stdio,
 * creates an app, checks it, fixes a diagnostic, runs the tests and deploys to preview; promotion needs
 * an operator server and the exact review receipt.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeCompiler } from '../adapters/node/compiler';
import type { Compiler } from '../core/build';
import { startControlPlane, type Started } from '../control-plane/main';
import { approveOverHttp, hostedRequest, platformOverLoopback } from '../testing/control-plane';
import { startMcp, type McpSession } from '../testing/mcp-client';

let work: string;
let projects: string;
let started: Started;
let agent: McpSession;
let shared: Compiler | undefined;
const compiler = async () => (shared ??= nodeCompiler());

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'platform-agent-session-')));
  projects = join(work, 'projects');
  mkdirSync(projects);
  started = await startControlPlane({ dataDir: join(work, 'data'), port: 0, devicePollMs: 20 });
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await started?.stop();
  rmSync(work, { recursive: true, force: true });
});

const env = () => ({ PLATFORM_CONFIG_DIR: join(work, 'config'), PLATFORM_CONTROL_URL: started.url });

describe('an agent builds and deploys an app through the tool server', { shuffle: false }, () => {
  let receiptId: string;

  it('a person signs in; the agent can see who, but cannot sign in itself', async () => {
    let approval: Promise<Response> | undefined;
    const login = await platformOverLoopback(['auth', 'login'], {
      cwd: work, work, controlUrl: started.url, compiler,
      onStderr(text) {
        const code = /code ([A-Z]{4}-[A-Z]{4})/.exec(text)?.[1];
        if (code && !approval) approval = approveOverHttp(started.url, code, 'ada', started.plane.secrets.operatorSecret);
      },
    });
    expect((await approval)?.status).toBe(200);
    expect(login.envelope.ok).toBe(true);
    agent = await startMcp(projects, env());
    expect(await agent.call('platform_auth_status')).toMatchObject({ ok: true, result: { envelope: { result: { builder: { name: 'ada' }, credential: 'session' } } } });
    expect(await agent.call('platform_auth_login')).toMatchObject({ ok: false, error: { code: 'forbidden_action' } });
  }, 120_000);

  it('creates an app and reads its facts', async () => {
    expect(await agent.call('platform_new', { directory: 'todo-app', template: 'todo' })).toMatchObject({ ok: true, result: { envelope: { result: { name: 'todo-app', template: 'todo' } } } });
    const context = await agent.call('platform_agent_context', { directory: 'todo-app' });
    expect(context).toMatchObject({ ok: true, result: { envelope: { result: { protocol: 'platform.agent-context.v0', tests: ['tests/todos.test.ts'], nextActions: [{ tool: 'platform_test' }, { tool: 'platform_dev_start' }, { tool: 'platform_deploy_preview' }] } } } });
    expect(await agent.call('platform_check', { directory: 'todo-app' })).toMatchObject({ ok: true });
  }, 120_000);

  it('checks, reads the diagnostic, fixes it and checks again', async () => {
    const manifestPath = join(projects, 'todo-app/app.manifest.json');
    const good = readFileSync(manifestPath, 'utf8');
    writeFileSync(manifestPath, good.replace('"type": "string",\n            "maxLength": 200', '"type": "strng",\n            "maxLength": 200'));
    const broken = await agent.call('platform_check', { directory: 'todo-app' });
    expect(broken).toMatchObject({ ok: false, error: { code: 'DG1002' }, result: { envelope: { diagnostics: [expect.objectContaining({ code: 'DG1002', file: 'app.manifest.json', span: expect.any(Object) })] } } });
    expect(await agent.call('platform_diagnostics', { code: 'DG1002' })).toMatchObject({ ok: true, result: { envelope: { result: { code: 'DG1002', area: 'manifest' } } } });
    writeFileSync(manifestPath, good);
    expect(await agent.call('platform_check', { directory: 'todo-app' })).toMatchObject({ ok: true });
  }, 120_000);

  it('runs the tests', async () => {
    expect(await agent.call('platform_test', { directory: 'todo-app', timeoutMilliseconds: 600_000 })).toMatchObject({ ok: true, result: { envelope: { command: 'test', ok: true } } });
  }, 620_000);

  it('deploys to preview, which serves the app', async () => {
    const deployed = await agent.call('platform_deploy_preview', { directory: 'todo-app' });
    expect(deployed).toMatchObject({ ok: true, result: { envelope: { command: 'deploy', result: { environment: 'preview', receiptId: expect.stringMatching(/^review_/) } } } });
    const result = (deployed.result as { envelope: { result: { url: string; receiptId: string } } }).envelope.result;
    receiptId = result.receiptId;
    expect(result.url).toMatch(/--preview\.localhost:/);
    const page = await hostedRequest(result.url, '/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<div id="app">');
    // The agent reads what it deployed through the control plane, as its owner.
    const inspected = await agent.call('platform_inspect', { previewUrl: result.url, view: 'manifest' });
    expect(inspected).toMatchObject({ ok: true, result: { envelope: { command: 'inspect', result: { view: 'manifest', environment: 'preview', manifest: { name: 'todo-app' } } } } });
    const logs = await agent.call('platform_inspect', { previewUrl: result.url, view: 'logs' });
    expect(logs).toMatchObject({ ok: true, result: { envelope: { result: { view: 'logs', calls: expect.any(Array), cursor: expect.any(String) } } } });
  }, 300_000);

  it('promotes only through an operator server, with the exact receipt', async () => {
    expect(await agent.call('platform_promote', { directory: 'todo-app', receiptId })).toMatchObject({ ok: false, error: { code: 'operator_only' } });
    const operator = await startMcp(projects, { ...env(), PLATFORM_MCP_PROFILE: 'operator' });
    try {
      const promoted = await operator.call('platform_promote', { directory: 'todo-app', receiptId });
      expect(promoted).toMatchObject({ ok: true, result: { envelope: { command: 'promote', result: { url: expect.not.stringContaining('--preview') } } } });
    } finally {
      await operator.close();
    }
  }, 300_000);
});
