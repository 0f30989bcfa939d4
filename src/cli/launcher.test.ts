/**
 * bin/platform, the command as installed on a system with a POSIX shell: it starts `check` and `build`
 * from the start-up snapshot in its own process, and hands everything else, a snapshot that cannot
 * serve and a `check` a check server may answer (bin/check-server.mjs), to the Node entry. Run here in a checkout of its own with a stand-in `node` first on the PATH
 * that prints what it was asked to run.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SNAPSHOT_BLOB, SNAPSHOT_INFO, SNAPSHOT_LAUNCHER, snapshotEnv } from '../../bin/prebuilt.mjs';
import { PLATFORM_LAUNCHER, runCliSync, succeeded } from '../testing/cli';

describe('bin/platform', () => {
  let root: string;
  const node = () => join(root, 'node-bin/node');
  const write = (path: string, text: string | Uint8Array) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const record = (snapshotBytes: number, nodeBytes = statSync(node()).size, flags = '') =>
    write(SNAPSHOT_INFO, `# a record\nSNAPSHOT_BYTES=${snapshotBytes}\nSNAPSHOT_NODE_TAG='v20.0.0 linux x64'\nSNAPSHOT_NODE_BYTES=${nodeBytes}\nSNAPSHOT_V8_FLAGS='${flags}'\n`);
  // No check server unless a test allows one: `check` then takes the snapshot's path.
  const run = (args: string[], env: Record<string, string> = {}, bin = join(root, 'bin/platform')) =>
    succeeded(runCliSync(args, { bin, cwd: tmpdir(), inheritEnv: false, env: { PATH: `${dirname(node())}:/usr/bin:/bin`, HOME: root, PLATFORM_CHECK_SERVER: '0', ...env } })).stdout;
  /** What the stand-in Node prints: each argument it was given, in brackets. */
  const said = (args: string[]) => args.map((arg) => `[${arg}]`).join('');
  const fromSnapshot = (...args: string[]) => said(['--snapshot-blob', join(root, SNAPSHOT_BLOB), join(root, SNAPSHOT_LAUNCHER), ...args]);
  const throughNodeEntry = (...args: string[]) => said([join(root, 'bin/platform.mjs'), ...args]);

  beforeAll(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'platform-launcher-')));
    mkdirSync(join(root, 'bin'));
    copyFileSync(PLATFORM_LAUNCHER, join(root, 'bin/platform'));
    chmodSync(join(root, 'bin/platform'), 0o755);
    // With SHOW_TUNABLES set, it prints the GLIBC_TUNABLES it was given too, in braces.
    write('node-bin/node', '#!/bin/sh\nfor arg in "$@"; do printf "[%s]" "$arg"; done\nif [ -n "$SHOW_TUNABLES" ]; then printf "{%s}" "$GLIBC_TUNABLES"; fi\n');
    chmodSync(node(), 0o755);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  beforeEach(() => {
    write(SNAPSHOT_BLOB, new Uint8Array(1000));
    record(1000);
    // The Node was installed before the snapshot was built.
    const before = new Date(Date.now() - 3_600_000);
    utimesSync(node(), before, before);
  });

  it('starts check and build from the snapshot, in its own process', () => {
    expect(run(['check', '--json', 'app'])).toBe(fromSnapshot('check', '--json', 'app'));
    expect(run(['build', 'app'])).toBe(fromSnapshot('build', 'app'));
  });

  it("starts the snapshot with glibc's malloc on huge pages, keeping what the caller set of that tunable", () => {
    const show = { SHOW_TUNABLES: '1' };
    expect(run(['check', 'app'], show)).toBe(`${fromSnapshot('check', 'app')}{glibc.malloc.hugetlb=1}`);
    expect(run(['build', 'app'], { ...show, GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }), 'added to the caller\'s').toBe(`${fromSnapshot('build', 'app')}{glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1}`);
    expect(run(['check', 'app'], { ...show, GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' }), 'the caller\'s choice').toBe(`${fromSnapshot('check', 'app')}{glibc.malloc.hugetlb=0}`);
    expect(run(['test', 'app'], show), 'the Node entry sets it for the child it starts itself').toBe(`${throughNodeEntry('test', 'app')}{}`);
    // The same rule for the processes bin/platform.mjs and the check server's client start (bin/prebuilt.mjs).
    expect(snapshotEnv({ PATH: '/bin' })).toEqual({ PATH: '/bin', GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' });
    expect(snapshotEnv({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' })).toEqual({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1' });
    expect(snapshotEnv({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0:glibc.malloc.arena_max=2' })).toEqual({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0:glibc.malloc.arena_max=2' });
  });

  it('gives V8 the options the snapshot was built with, and no others', () => {
    record(1000, undefined, '--initial-heap-size=256 --max-lazy');
    expect(run(['check', 'app'])).toBe(said(['--initial-heap-size=256', '--max-lazy', '--snapshot-blob', join(root, SNAPSHOT_BLOB), join(root, SNAPSHOT_LAUNCHER), 'check', 'app']));
    record(1000);
    expect(run(['check', 'app'], { SNAPSHOT_V8_FLAGS: '--stress-snapshot' }), 'not from the environment').toBe(fromSnapshot('check', 'app'));
  });

  it('hands check to the Node entry where a check server may answer it, not under CI', () => {
    expect(run(['check', 'app'], { PLATFORM_CHECK_SERVER: '' })).toBe(throughNodeEntry('check', 'app'));
    for (const CI of ['false', '0']) expect(run(['check', 'app'], { PLATFORM_CHECK_SERVER: '', CI }), `CI=${CI}`).toBe(throughNodeEntry('check', 'app'));
    expect(run(['check', 'app'], { PLATFORM_CHECK_SERVER: '', CI: 'true' })).toBe(fromSnapshot('check', 'app'));
    expect(run(['build', 'app'], { PLATFORM_CHECK_SERVER: '' }), 'build has no server').toBe(fromSnapshot('build', 'app'));
  });

  it('hands every other command to the Node entry', () => {
    for (const command of ['test', 'dev', 'deploy', 'explain', '--help']) expect(run([command, 'app'])).toBe(throughNodeEntry(command, 'app'));
    expect(run([])).toBe(throughNodeEntry());
  });

  it('keeps each argument whole', () => {
    expect(run(['check', 'my  app', '--json', ''])).toBe(fromSnapshot('check', 'my  app', '--json', ''));
    expect(run(['test', "it's", '*'])).toBe(throughNodeEntry('test', "it's", '*'));
  });

  it('hands check to the Node entry when the snapshot cannot serve', () => {
    record(2000);
    expect(run(['check', 'app']), 'a blob cut short').toBe(throughNodeEntry('check', 'app'));
    record(1000, 12);
    expect(run(['check', 'app']), 'built by another Node').toBe(throughNodeEntry('check', 'app'));
    record(1000);
    const after = new Date(Date.now() + 60_000);
    utimesSync(node(), after, after);
    expect(run(['check', 'app']), 'the Node replaced since').toBe(throughNodeEntry('check', 'app'));
  });

  it('hands check to the Node entry without a snapshot, saying nothing of it', () => {
    rmSync(join(root, SNAPSHOT_BLOB));
    const quiet = runCliSync(['check', 'app'], { bin: join(root, 'bin/platform'), inheritEnv: false, env: { PATH: `${dirname(node())}:/usr/bin:/bin`, PLATFORM_CHECK_SERVER: '0' } });
    expect([quiet.stdout, quiet.stderr]).toEqual([throughNodeEntry('check', 'app'), '']);
    rmSync(join(root, SNAPSHOT_INFO));
    write(SNAPSHOT_BLOB, new Uint8Array(1000));
    expect(run(['check', 'app'])).toBe(throughNodeEntry('check', 'app'));
  });

  it('leaves the snapshot out when told to, or when NODE_OPTIONS gives V8 options of its own', () => {
    expect(run(['check', 'app'], { PLATFORM_CLI_SNAPSHOT: '0' })).toBe(throughNodeEntry('check', 'app'));
    expect(run(['check', 'app'], { PLATFORM_CLI_SOURCES: '1' })).toBe(throughNodeEntry('check', 'app'));
    expect(run(['check', 'app'], { NODE_OPTIONS: '--max-old-space-size=4096' })).toBe(throughNodeEntry('check', 'app'));
  });

  it('finds its checkout when run through a link, as npm installs it', () => {
    mkdirSync(join(root, 'project/node_modules/.bin'), { recursive: true });
    symlinkSync('../../../bin/platform', join(root, 'project/node_modules/.bin/platform'));
    expect(run(['check', 'app'], {}, join(root, 'project/node_modules/.bin/platform'))).toBe(fromSnapshot('check', 'app'));
    expect(run(['test', 'app'], {}, join(root, 'project/node_modules/.bin/platform'))).toBe(throughNodeEntry('test', 'app'));
  });
});
