/**
 * `platform` as people run it (bin/platform.mjs, a process): the commands that type-check run in a child
 * started from the CLI's start-up snapshot. They answer exactly as the CLI started the ordinary way
 * (PLATFORM_CLI_SNAPSHOT=0), and the child never outlives the process that started it.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prebuiltEntry, SNAPSHOT_BLOB, SNAPSHOT_INFO, snapshotArgs, snapshotInfo, snapshotTag } from '../../bin/prebuilt.mjs';
import { baseApp, CLIENT } from '../core/analyze/__fixtures__/base-app';
import { alive, eventually, processesNaming } from '../testing/control-plane';
import { DevProcess } from '../testing/dev-process';
import { PLATFORM_LAUNCHER, PLATFORM_MJS, ROOT, runCli, startCli } from '../testing/cli';

const roots: string[] = [];

afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function project(files: Record<string, string | Uint8Array>): string {
  const root = mkdtempSync(join(tmpdir(), 'platform-snapshot-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** `platform` run through the Node entry (bin/platform.mjs), or as installed (bin/platform, the shell launcher). */
async function platform(args: string[], env: Record<string, string> = {}, entry: 'node' | 'shell' = 'node'): Promise<{ code: number | null; stdout: string }> {
  const { code, stdout } = await runCli(args, { bin: entry === 'node' ? PLATFORM_MJS : PLATFORM_LAUNCHER, env: { PLATFORM_CLI_SOURCES: '', ...env } });
  return { code, stdout };
}

/** The processes whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): Array<{ pid: number; cmdline: string }> {
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = Number(/^\d+ \(.*\) \S (\d+)/s.exec(readFileSync(`/proc/${entry}/stat`, 'utf8'))?.[1]);
      if (parent === pid) found.push({ pid: Number(entry), cmdline: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ') });
    } catch {
      // Ended meanwhile.
    }
  }
  return found;
}


describe('the CLI started from its start-up snapshot', () => {
  it('is built for this Node by the test setup', () => {
    expect(snapshotArgs(new URL(`file://${ROOT}/`))).toBeDefined();
  });

  it('is used only whole and built by this Node', () => {
    const root = project({});
    mkdirSync(join(root, 'build/cli'), { recursive: true });
    writeFileSync(join(root, SNAPSHOT_BLOB), new Uint8Array(1000));
    const at = new URL(`file://${root}/`);
    writeFileSync(join(root, SNAPSHOT_INFO), snapshotInfo(1000, ['--initial-heap-size=256']));
    expect(snapshotArgs(at)?.slice(0, 3), 'with the V8 options it was built with').toEqual(['--initial-heap-size=256', '--snapshot-blob', join(root, SNAPSHOT_BLOB)]);
    writeFileSync(join(root, SNAPSHOT_INFO), snapshotInfo(2000));
    expect(snapshotArgs(at), 'a blob cut short').toBeUndefined();
    writeFileSync(join(root, SNAPSHOT_INFO), snapshotInfo(1000).replace(snapshotTag(), 'v0.0.0 linux x64'));
    expect(snapshotArgs(at), 'another Node').toBeUndefined();
    rmSync(join(root, SNAPSHOT_INFO));
    expect(snapshotArgs(at), 'no record of what built it').toBeUndefined();
  });

  it('checks an app exactly as the CLI started without it: the same envelope, the same exit status', async () => {
    const broken = baseApp();
    broken['src/client/main.tsx'] = `${CLIENT}\nconst wrong: string = [1, 2].map((n) => n * 2);\nconst el: HTMLInputElement = document.createElement('div');\nvoid wrong; void el;\n`;
    for (const files of [baseApp(), broken]) {
      const root = project(files);
      const ordinary = await platform(['check', '--json', root], { PLATFORM_CLI_SNAPSHOT: '0' });
      expect(await platform(['check', '--json', root]), 'through the Node entry').toEqual(ordinary);
      expect(await platform(['check', '--json', root], {}, 'shell'), 'as installed').toEqual(ordinary);
    }
    const root = project(broken);
    const answer = await platform(['check', '--json', root]);
    expect(answer.code).toBe(1);
    expect(JSON.parse(answer.stdout).diagnostics.map((d: { code: string }) => d.code)).toEqual(['DG1205', 'DG1205']);
  });

  it('builds exactly as the CLI started without it, in one process started from the snapshot by bin/platform', async () => {
    const [first, second] = [project(baseApp()), project(baseApp())];
    const { child: started, ended: exited } = startCli(['build', '--json', first], { bin: PLATFORM_LAUNCHER, env: { PLATFORM_CLI_SOURCES: '' } });
    // The launcher replaces itself with Node (exec): the process it started is Node from the snapshot.
    let cmdline = '';
    while (!cmdline.includes('--snapshot-blob') && alive(started.pid!)) {
      cmdline = readFileSync(`/proc/${started.pid}/cmdline`, 'utf8').split('\0').join(' ');
      await new Promise((wake) => setTimeout(wake, 2));
    }
    expect(cmdline).toContain(`--snapshot-blob ${join(ROOT, SNAPSHOT_BLOB)}`);
    expect(childrenOf(started.pid!).filter((child) => child.cmdline.includes('platform.mjs'))).toEqual([]);
    await exited;
    const fromSnapshot = JSON.parse(readFileSync(join(first, '.platform/latest.json'), 'utf8')) as { artifact?: string };
    await platform(['build', '--json', second], { PLATFORM_CLI_SNAPSHOT: '0' });
    expect(fromSnapshot.artifact).toMatch(/^sha256:/);
    expect(JSON.parse(readFileSync(join(second, '.platform/latest.json'), 'utf8')).artifact).toBe(fromSnapshot.artifact);
  });

  it('runs `platform dev` in a child from the snapshot, which ends with its engines when the parent is killed outright', async () => {
    const root = mkdtempSync(join(tmpdir(), 'platform-snapshot-dev-'));
    roots.push(root);
    cpSync(join(ROOT, 'templates/todo'), root, { recursive: true });
    const dev = new DevProcess(['dev', '--json', '--port', '0'], root);
    try {
      const url = String((await dev.kind('preview.ready')).url);
      const response = await fetch(new URL('/_platform/v0/query/todos.list', url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":{}}' });
      expect(response.status).toBe(200);
      // A source edited since the test setup built the CLI makes bin/platform.mjs run the sources instead.
      expect(prebuiltEntry(new URL(`file://${ROOT}/`)), 'the prebuilt CLI is current').toBeDefined();
      const [child, ...others] = childrenOf(dev.child.pid!);
      expect(others).toEqual([]);
      expect(child!.cmdline).toContain('--snapshot-blob');
      const engines = () => processesNaming(join(root, '.platform/engines/dev')).filter((p) => p.state !== 'Z' && p.state !== 'X');
      expect(engines().length).toBeGreaterThan(0);

      dev.child.kill('SIGKILL');
      await dev.exited;
      expect(await eventually(() => !alive(child!.pid)), 'the child from the snapshot ended').toBe(true);
      expect(await eventually(() => engines().length === 0), 'its workerd engines ended').toBe(true);
    } finally {
      await dev.stop();
    }
  }, 180_000);
});
