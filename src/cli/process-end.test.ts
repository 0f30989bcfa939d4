/**
 * How the real CLI (bin/platform.mjs processes) ends: Ctrl-C (SIGINT to the process group, as a terminal
 * sends it) while `platform dev` runs its tests ends the server cleanly (exit 0, `server.stopped`, its
 * discovery record removed, no engine left), and a crash is DG0000 on stderr, never a raw Node stack.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { collect, PLATFORM_MJS, ROOT, startCli, type CliRun } from '../testing/cli';
import { processesNaming } from '../testing/control-plane';

const roots: string[] = [];

afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe('Ctrl-C during platform dev', () => {
  // Ctrl-C in a terminal signals the whole process group (the engines too); a supervisor (the tool server's
  // dev_stop) signals the CLI's process alone, whose stop must end the test run's engine itself.
  for (const [how, signal, reason] of [
    ['SIGINT to the process group', 'SIGINT', 'interrupted (Ctrl-C)'],
    ['SIGTERM to the process alone', 'SIGTERM', 'SIGTERM received'],
  ] as const) {
    it(`${how} while dev's automatic test run is in a test: exit 0, server.stopped, the discovery record removed, no engine left`, async () => {
      const root = mkdtempSync(join(tmpdir(), 'platform-interrupt-'));
      roots.push(root);
      cpSync(join(ROOT, 'templates/todo'), root, { recursive: true });
      writeFileSync(
        join(root, 'tests/todos.test.ts'),
        [
          "import { expect, query, test } from 'platform/test';",
          "test('quick', async () => {",
          "  expect(await query('todos.list', {})).toEqual([]);",
          '});',
          "test('waits', async () => {",
          '  await new Promise((resolve) => setTimeout(resolve, 60_000));',
          '});',
          '',
        ].join('\n'),
      );
      // Its own process group, as a terminal's foreground job: the interrupt reaches every process in it.
      const { child, output, ended: exit } = startCli(['dev', '--json', '--port', '0'], { cwd: root, detached: true, env: { PLATFORM_TEST_TIMEOUT_MS: '90000' } });
      const events = () =>
        output.stdout
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      try {
        const limit = Date.now() + 150_000;
        // 'quick' passed: the run is in 'waits', its engine running.
        while (!events().some((event) => event.kind === 'test.case.pass' && event.name === 'quick')) {
          if (child.exitCode !== null || Date.now() > limit) throw new Error(`no test ran: ${output.stdout.slice(-2000)} ${output.stderr.slice(-2000)}`);
          await new Promise((wake) => setTimeout(wake, 100));
        }
        expect(existsSync(join(root, '.platform/servers/dev.json'))).toBe(true);
        process.kill(signal === 'SIGINT' ? -child.pid! : child.pid!, signal);
        const end = await exit;
        expect({ code: end.code, signal: end.signal }, end.stderr).toEqual({ code: 0, signal: null });
        expect(events().at(-1)).toMatchObject({ kind: 'server.stopped', mode: 'dev', reason });
        expect(existsSync(join(root, '.platform/servers/dev.json'))).toBe(false);
        expect(processesNaming(root).filter((p) => p.state !== 'Z' && p.state !== 'X')).toEqual([]);
      } finally {
        if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
      }
    }, 200_000);
  }
});

describe('a crash of the CLI', () => {
  /** Runs `platform <args>` from a working directory deleted before Node starts. */
  function fromDeletedDirectory(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
    const gone = join(mkdtempSync(join(tmpdir(), 'platform-crash-')), 'gone');
    roots.push(join(gone, '..'));
    mkdirSync(gone);
    const child = spawn('/bin/sh', ['-c', 'cd "$1" && rmdir "$1" && shift && exec "$@"', 'sh', gone, process.execPath, PLATFORM_MJS, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    return collect(child).ended;
  }

  for (const [name, env] of [
    ['the launcher', {}],
    ['the sources', { PLATFORM_CLI_SOURCES: '1' }],
  ] as const) {
    it(`platform check --json from a deleted working directory (${name}): DG0000 on stderr, exit 1, no stack`, async () => {
      const { code, stdout, stderr } = await fromDeletedDirectory(['check', '--json'], env);
      expect(stdout).toBe('');
      const lines = stderr.trimEnd().split('\n');
      expect(lines, stderr).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ code: 'DG0000', severity: 'error', message: expect.stringContaining('uv_cwd') });
      expect(code).toBe(1);
    }, 60_000);
  }

  it('the CLI loaded, then its working directory deleted (as the prebuilt CLI and the start-up snapshot run it): DG0000, exit 1', async () => {
    const gone = join(mkdtempSync(join(tmpdir(), 'platform-crash-')), 'gone');
    roots.push(join(gone, '..'));
    mkdirSync(gone);
    const script = [
      "import { rmdirSync } from 'node:fs';",
      "import { register } from 'tsx/esm/api';",
      'register();',
      `const { runProcess } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/cli/main.ts')).href)});`,
      `process.chdir(${JSON.stringify(gone)});`,
      `rmdirSync(${JSON.stringify(gone)});`,
      "await runProcess(['check', '--json']);",
    ].join('\n');
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const { code, stdout, stderr } = await collect(child).ended;
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n'), stderr).toHaveLength(1);
    expect(JSON.parse(stderr)).toMatchObject({ code: 'DG0000', severity: 'error', message: expect.stringContaining('uv_cwd') });
    expect(code).toBe(1);
  }, 60_000);

  it('without --json: one readable DG0000 line', async () => {
    const { code, stderr } = await fromDeletedDirectory(['check']);
    expect(stderr).toMatch(/^error DG0000: platform crashed before producing a result: .*uv_cwd.*\n$/);
    expect(code).toBe(1);
  }, 60_000);
});
