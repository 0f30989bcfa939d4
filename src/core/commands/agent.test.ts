/**
 * The agent commands through the CLI on real directories: `agent context` (deterministic, read-only,
 * unchanged by a build), `agent setup` (DG3101 to DG3103, files it does not own left alone, the exact
 * configuration docs/agents.md shows), `actions --json` and `doctor` (DG4001 with the details in hint).
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeCompiler } from '../../adapters/node/compiler';
import { runInProcess } from '../../testing/cli';
import type { Compiler } from '../build';
import { commands } from '.';
import { COMMAND_ACTIONS, TOOL_ACTIONS } from './actions';
import { sha256Hex } from '../hash';

const ROOT = join(import.meta.dirname, '../../..');
let work: string;
let shared: Compiler | undefined;
const compiler = async () => (shared ??= nodeCompiler());

async function platform(args: string[], cwd = work): Promise<{ code: number; stdout: string; json: any }> {
  const { code, stdout } = await runInProcess(args, { cwd, compiler, env: { PLATFORM_CONFIG_DIR: join(work, 'config') } });
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, json };
}

/** Every file under a directory with its content hash: what "writes nothing" is checked against. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[relative(dir, full)] = sha256Hex(readFileSync(full));
    }
  };
  walk(dir);
  return out;
}

function template(name: string, as: string): string {
  const dir = join(work, as);
  cpSync(join(ROOT, 'templates', name), dir, { recursive: true });
  return dir;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'platform-agent-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('platform agent context', () => {
  it('is byte-identical twice in a row and after a build, and writes nothing', async () => {
    const project = template('team-board', 'board');
    const before = snapshot(project);
    const first = await platform(['agent', 'context', project, '--json']);
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({ protocol: 'platform.agent-context.v0', manifest: { name: 'team-board' }, contentHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(first.json.resources).toEqual(['platform://project/context', 'platform://project/manifest', 'platform://project/operations', 'platform://project/tests', 'platform://docs/index', 'platform://docs/{+path}', 'platform://diagnostics/{code}']);
    expect(first.json.zones.shared.root).toBe('src/shared');
    expect(first.json.tests.length).toBeGreaterThan(0);
    expect(first.json.nextActions[0].tool).toBe('platform_test');
    expect(snapshot(project)).toEqual(before);

    const second = await platform(['agent', 'context', project, '--json']);
    expect(second.stdout).toBe(first.stdout);

    expect((await platform(['build', project, '--json'])).code).toBe(0);
    expect(snapshot(project)).not.toEqual(before);
    const afterBuild = await platform(['agent', 'context', project, '--json']);
    expect(afterBuild.stdout).toBe(first.stdout);
  }, 120_000);

  it('carries the current diagnostics and points at check first; the hash follows the content', async () => {
    const project = template('todo', 'broken');
    const clean = await platform(['agent', 'context', project, '--json']);
    const manifest = JSON.parse(readFileSync(join(project, 'app.manifest.json'), 'utf8'));
    writeFileSync(join(project, 'app.manifest.json'), JSON.stringify({ ...manifest, nmae: 'x' }, null, 2));
    const broken = await platform(['agent', 'context', project, '--json']);
    expect(broken.json.diagnostics.map((d: { code: string }) => d.code)).toContain('DG1003');
    expect(broken.json.manifest).toBeNull();
    expect(broken.json.nextActions[0].tool).toBe('platform_check');
    expect(broken.json.contentHash).not.toBe(clean.json.contentHash);
  }, 120_000);

  it('answers DG1001 in an envelope where there is no manifest', async () => {
    const { code, json } = await platform(['agent', 'context', work, '--json']);
    expect(code).toBe(1);
    expect(json).toMatchObject({ protocol: 'platform.command.v0', command: 'agent', ok: false, diagnostics: [{ code: 'DG1001' }] });
  });
});

describe('platform agent setup', () => {
  it('writes the adapter files, then --check finds them current', async () => {
    const project = template('todo', 'setup-auto');
    const check = await platform(['agent', 'setup', project, '--check', '--json']);
    expect(check.json.diagnostics.map((d: { code: string; file: string }) => `${d.code} ${d.file}`)).toEqual(['DG3101 .mcp.json', 'DG3101 AGENTS.md']);
    expect(readdirSync(project)).not.toContain('.mcp.json');

    const setup = await platform(['agent', 'setup', project, '--json']);
    expect(setup.json).toMatchObject({ ok: true, result: { targets: ['agents', 'mcp'], written: ['.mcp.json', 'AGENTS.md'] } });
    expect((await platform(['agent', 'setup', project, '--check', '--json'])).json).toMatchObject({ ok: true, diagnostics: [] });
    // Running again rewrites nothing.
    expect((await platform(['agent', 'setup', project, '--json'])).json.result.written).toEqual([]);
  });

  it('writes for --target mcp exactly the configuration docs/agents.md shows', async () => {
    const project = template('todo', 'setup-mcp');
    expect((await platform(['agent', 'setup', project, '--target', 'mcp', '--json'])).json.result.written).toEqual(['.mcp.json']);
    const written = readFileSync(join(project, '.mcp.json'), 'utf8');
    expect(JSON.parse(written)).toEqual({ mcpServers: { platform: { command: 'npx', args: ['platform', 'mcp'], env: { PLATFORM_MCP_ROOT: '.', PLATFORM_MCP_VERSION: expect.any(String) } } } });
    expect(readFileSync(join(ROOT, 'docs/agents.md'), 'utf8')).toContain(written.trim());
    for (const target of ['claude', 'codex', 'cursor', 'vscode'] as const) {
      expect((await platform(['agent', 'setup', project, '--target', target, '--json'])).json.ok).toBe(true);
    }
    expect(JSON.parse(readFileSync(join(project, '.vscode/mcp.json'), 'utf8')).servers.platform).toMatchObject({ type: 'stdio', command: 'npx', args: ['platform', 'mcp'] });
    expect(readFileSync(join(project, '.codex/config.toml'), 'utf8')).toContain('[mcp_servers.platform]');
  });

  it('refuses the whole write when a selected path is someone else\'s (DG3102), and reports stale files (DG3101)', async () => {
    const project = template('todo', 'setup-owned');
    writeFileSync(join(project, 'AGENTS.md'), '# Our own notes\n');
    const refused = await platform(['agent', 'setup', project, '--json']);
    expect(refused.json).toMatchObject({ ok: false, diagnostics: [{ code: 'DG3102', file: 'AGENTS.md' }] });
    expect(readdirSync(project)).not.toContain('.mcp.json');
    expect(readFileSync(join(project, 'AGENTS.md'), 'utf8')).toBe('# Our own notes\n');

    // A file setup wrote and an older setup recorded is stale, not foreign: --check says so, setup refreshes it.
    rmSync(join(project, 'AGENTS.md'));
    expect((await platform(['agent', 'setup', project, '--json'])).json.ok).toBe(true);
    const older = '<!-- Generated by platform agent setup 0.0.1. -->\n';
    writeFileSync(join(project, 'AGENTS.md'), older);
    const recordPath = join(project, '.platform/agent-setup.json');
    const record = JSON.parse(readFileSync(recordPath, 'utf8'));
    record.files['AGENTS.md'] = sha256Hex(older);
    writeFileSync(recordPath, JSON.stringify(record));
    expect((await platform(['agent', 'setup', project, '--check', '--json'])).json).toMatchObject({ ok: false, diagnostics: [{ code: 'DG3101', file: 'AGENTS.md' }] });
    expect((await platform(['doctor', project, '--json'])).json).toMatchObject({ ok: false, diagnostics: [{ code: 'DG4001', hint: expect.stringContaining('AGENTS.md is out of date') }] });
    expect((await platform(['agent', 'setup', project, '--json'])).json.result.written).toEqual(['AGENTS.md']);
  });

  it('refuses an unsupported --target (DG3103) and an unknown action (DG0002)', async () => {
    expect((await platform(['agent', 'setup', work, '--target', 'emacs', '--json'])).json).toMatchObject({ ok: false, diagnostics: [{ code: 'DG3103' }] });
    expect((await platform(['agent', 'frobnicate', '--json'])).json).toMatchObject({ ok: false, diagnostics: [{ code: 'DG0002' }] });
  });
});

describe('platform actions and platform doctor', () => {
  it('lists every command and every tool with a safety class', async () => {
    const { code, json } = await platform(['actions', '--json']);
    expect(code).toBe(0);
    expect(json.protocol).toBe('platform.actions.v0');
    const names = json.commands.map((c: { name: string }) => c.name);
    for (const command of commands) expect(names).toContain(command.name);
    expect(json.tools).toHaveLength(15);
    expect(json.tools.filter((t: { profile: string }) => t.profile === 'author')).toHaveLength(14);
    for (const action of [...json.commands, ...json.tools]) expect(['read', 'local-write', 'local-run', 'preview', 'production', 'destructive', 'secret']).toContain(action.safety);
    // Every tool named by a command is a tool, and the commands a person runs name why.
    for (const c of COMMAND_ACTIONS) if (c.tool) expect(TOOL_ACTIONS.map((t) => t.name)).toContain(c.tool);
    for (const name of ['delete', 'env', 'token', 'state', 'import']) expect(json.commands.find((c: { name: string }) => c.name === name).notExposed).toBeTruthy();
  });

  it('passes on a fresh template and fails DG4001 with the details in hint when the build is damaged', async () => {
    const project = template('endpoints', 'doctor');
    const fresh = await platform(['doctor', project, '--json']);
    expect(fresh.json).toMatchObject({ ok: true, result: { checks: expect.arrayContaining([expect.objectContaining({ name: 'node', ok: true }), expect.objectContaining({ name: 'workerd', ok: true }), expect.objectContaining({ name: 'esbuild', ok: true })]) } });
    expect((await platform(['build', project, '--json'])).code).toBe(0);
    const blobs = join(project, '.platform/blobs');
    const blob = readdirSync(blobs)[0]!;
    writeFileSync(join(blobs, blob), 'damaged');
    const damaged = await platform(['doctor', project, '--json']);
    expect(damaged.code).toBe(1);
    expect(damaged.json.diagnostics).toEqual([expect.objectContaining({ code: 'DG4001', message: 'The build check failed.', hint: expect.stringContaining('DG1703') })]);
  }, 120_000);
});
