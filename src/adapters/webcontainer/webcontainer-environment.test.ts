import { describe, expect, it } from 'vitest';
import type { DirectoryNode, FileSystemTree } from '@webcontainer/api';
import { describeUnavailable, type EnvironmentStatus } from './environment';
import { pageEnvironment } from './index';
import { collectNodeModules } from './node-modules';
import type { ContainerApi, ContainerDirEntry, ContainerProcess } from './container-api';
import { WebContainerEnvironment, type WebContainerOptions } from './webcontainer-environment';

const ISOLATED = { crossOriginIsolated: true, sharedArrayBuffer: true };

/** What a spawned process does in the fake: its output chunks and exit code. */
type Script = (command: string, args: string[], cwd: string | undefined) => { output: string[]; exit: number };

/**
 * An in-memory stand-in for the third-party WebContainer API (not our logic): a file map at its
 * working directory, `mount` merging a tree in, and `spawn` following a script.
 */
class FakeContainer implements ContainerApi {
  readonly workdir = '/home/project';
  readonly files = new Map<string, string | Uint8Array>();
  readonly spawned: Array<{ command: string; args: string[]; cwd?: string; terminal?: { cols: number; rows: number } }> = [];
  readonly mounts: FileSystemTree[] = [];
  torndown = false;
  constructor(readonly script: Script = () => ({ output: [], exit: 0 })) {}

  async mount(tree: FileSystemTree): Promise<void> {
    this.mounts.push(tree);
    const walk = (node: FileSystemTree, prefix: string) => {
      for (const [name, entry] of Object.entries(node)) {
        if ('directory' in entry) walk((entry as DirectoryNode).directory, `${prefix}${name}/`);
        else if ('contents' in entry.file) this.files.set(`${prefix}${name}`, entry.file.contents);
      }
    };
    walk(tree, '');
  }

  async spawn(command: string, args: string[], options: { cwd?: string; terminal?: { cols: number; rows: number } } = {}): Promise<ContainerProcess> {
    this.spawned.push({ command, args, ...options });
    const { output, exit } = this.script(command, args, options.cwd);
    const typed: string[] = [];
    return {
      output: new ReadableStream<string>({
        start(controller) {
          for (const chunk of output) controller.enqueue(chunk);
          controller.close();
        },
      }),
      input: new WritableStream<string>({ write: (chunk) => void typed.push(chunk) }),
      exit: Promise.resolve(exit),
      kill: () => undefined,
    };
  }

  fs = {
    writeFile: async (path: string, data: string | Uint8Array) => void this.files.set(path, data),
    mkdir: async (path: string) => path,
    rm: async (path: string) => void this.files.delete(path),
    readFile: async (path: string) => {
      const data = this.files.get(path);
      if (data === undefined) throw new Error(`ENOENT: ${path}`);
      return typeof data === 'string' ? new TextEncoder().encode(data) : data;
    },
    readdir: async (path: string): Promise<ContainerDirEntry[]> => {
      const prefix = `${path}/`;
      const names = new Map<string, boolean>();
      for (const key of this.files.keys()) {
        if (!key.startsWith(prefix)) continue;
        const [name, ...rest] = key.slice(prefix.length).split('/');
        names.set(name!, rest.length > 0 || names.get(name!) === true);
      }
      if (names.size === 0) throw new Error(`ENOENT: ${path}`);
      return [...names].map(([name, isDir]) => ({ name, isFile: () => !isDir, isDirectory: () => isDir }));
    },
  };

  teardown(): void {
    this.torndown = true;
  }
}

const TOOLCHAIN = { 'package.json': '{"name":"platform-toolchain"}', 'cli.mjs': 'console.log(1)' };

function environment(container: FakeContainer, options: Partial<WebContainerOptions> = {}) {
  const boots: Array<{ coep: string; workdirName: string }> = [];
  const env = new WebContainerEnvironment({
    features: ISOLATED,
    bootContainer: async (o) => {
      boots.push(o);
      return container;
    },
    loadToolchain: async () => TOOLCHAIN,
    ...options,
  });
  return { env, boots };
}

async function readAll(stream: ReadableStream<string>): Promise<string> {
  let text = '';
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) text += r.value;
  return text;
}

describe('boot', () => {
  it('is unavailable without cross-origin isolation, and never contacts StackBlitz', async () => {
    let booted = false;
    const env = new WebContainerEnvironment({ features: { crossOriginIsolated: false, sharedArrayBuffer: true }, bootContainer: async () => ((booted = true), new FakeContainer()), loadToolchain: async () => ({}) });
    const status = await env.boot();
    expect(status).toEqual({ state: 'unavailable', reason: { kind: 'not-isolated' } });
    expect(booted).toBe(false);
    expect(describeUnavailable({ kind: 'not-isolated' })).toMatch(/^this page is not cross-origin isolated/);
  });

  it('is unavailable without SharedArrayBuffer', async () => {
    const env = new WebContainerEnvironment({ features: { crossOriginIsolated: true, sharedArrayBuffer: false }, bootContainer: async () => new FakeContainer(), loadToolchain: async () => ({}) });
    expect(await env.boot()).toEqual({ state: 'unavailable', reason: { kind: 'no-shared-memory' } });
  });

  it('races a boot that never settles against the timeout (15 s by default)', async () => {
    const timers: Array<{ ms: number; fire(): void }> = [];
    const env = new WebContainerEnvironment({
      features: ISOLATED,
      bootContainer: () => new Promise(() => undefined),
      loadToolchain: async () => ({}),
      setTimeout: (fire, ms) => timers.push({ ms, fire }),
    });
    const seen: EnvironmentStatus[] = [];
    env.onStatus((s) => seen.push(s));
    const booting = env.boot();
    await Promise.resolve();
    expect(env.status).toEqual({ state: 'booting' });
    expect(timers.map((t) => t.ms)).toEqual([15_000]);
    timers[0]!.fire();
    const status = await booting;
    expect(status).toEqual({ state: 'unavailable', reason: { kind: 'timeout', afterMs: 15_000 } });
    expect(seen.map((s) => s.state)).toEqual(['booting', 'unavailable']);
    expect(describeUnavailable({ kind: 'timeout', afterMs: 15_000 })).toBe('boot timed out after 15 s (offline, or StackBlitz unreachable?)');
  });

  it('is unavailable at once when the origin that serves WebContainers cannot be reached, though the boot never settles and no timer fires', async () => {
    const timers: number[] = [];
    let booted = false;
    const env = new WebContainerEnvironment({
      features: ISOLATED,
      bootContainer: () => ((booted = true), new Promise(() => undefined)),
      preflight: { origin: 'https://stackblitz.com', reach: () => Promise.reject(new TypeError('Failed to fetch')) },
      loadToolchain: async () => ({}),
      setTimeout: (_fire, ms) => timers.push(ms),
    });
    const seen: EnvironmentStatus[] = [];
    env.onStatus((s) => seen.push(s));
    const status = await env.boot();
    expect(status).toEqual({ state: 'unavailable', reason: { kind: 'unreachable', origin: 'https://stackblitz.com' } });
    expect(seen.map((s) => s.state)).toEqual(['booting', 'unavailable']);
    // The boot was tried and the timeout armed, but neither decided.
    expect(booted).toBe(true);
    expect(timers).toEqual([15_000]);
    expect(describeUnavailable(status.state === 'unavailable' ? status.reason : { kind: 'offline' })).toBe('https://stackblitz.com, which serves WebContainers, cannot be reached from this page (offline, or blocked)');
  });

  it('lets the boot decide when the origin answers the preflight', async () => {
    let finish!: (c: ContainerApi) => void;
    const env = new WebContainerEnvironment({
      features: ISOLATED,
      bootContainer: () => new Promise((resolve) => (finish = resolve)),
      preflight: { origin: 'https://stackblitz.com', reach: async () => undefined },
      loadToolchain: async () => ({}),
      setTimeout: () => undefined,
    });
    const booting = env.boot();
    // Let the preflight settle: reaching the origin alone ends nothing.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(env.status).toEqual({ state: 'booting' });
    finish(new FakeContainer());
    expect(await booting).toEqual({ state: 'ready' });
  });

  it('becomes ready when a boot finishes after the preflight failed', async () => {
    let finish!: (c: ContainerApi) => void;
    const env = new WebContainerEnvironment({
      features: ISOLATED,
      bootContainer: () => new Promise((resolve) => (finish = resolve)),
      preflight: { origin: 'https://stackblitz.com', reach: () => Promise.reject(new TypeError('Failed to fetch')) },
      loadToolchain: async () => ({}),
      setTimeout: () => undefined,
    });
    expect((await env.boot()).state).toBe('unavailable');
    const ready = new Promise<EnvironmentStatus>((resolve) => env.onStatus(resolve));
    finish(new FakeContainer());
    expect(await ready).toEqual({ state: 'ready' });
  });

  it('is unavailable without trying when the browser says it is offline', async () => {
    let booted = false;
    const env = new WebContainerEnvironment({ features: { ...ISOLATED, online: false }, bootContainer: async () => ((booted = true), new FakeContainer()), loadToolchain: async () => ({}) });
    expect(await env.boot()).toEqual({ state: 'unavailable', reason: { kind: 'offline' } });
    expect(booted).toBe(false);
  });

  it('takes a configured timeout, in real time', async () => {
    const env = new WebContainerEnvironment({ features: ISOLATED, bootContainer: () => new Promise(() => undefined), loadToolchain: async () => ({}), timeoutMs: 30 });
    const started = Date.now();
    expect(await env.boot()).toEqual({ state: 'unavailable', reason: { kind: 'timeout', afterMs: 30 } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('becomes ready when a boot that timed out finishes after all', async () => {
    let finish!: (c: ContainerApi) => void;
    const env = new WebContainerEnvironment({ features: ISOLATED, bootContainer: () => new Promise((resolve) => (finish = resolve)), loadToolchain: async () => ({}), timeoutMs: 1 });
    expect((await env.boot()).state).toBe('unavailable');
    const ready = new Promise<EnvironmentStatus>((resolve) => env.onStatus(resolve));
    finish(new FakeContainer());
    expect(await ready).toEqual({ state: 'ready' });
  });

  it('reports a boot that throws with its message', async () => {
    const env = new WebContainerEnvironment({ features: ISOLATED, bootContainer: async () => Promise.reject(new Error('Only a single WebContainer instance can be booted')), loadToolchain: async () => ({}) });
    const status = await env.boot();
    expect(status).toEqual({ state: 'unavailable', reason: { kind: 'boot-failed', message: 'Only a single WebContainer instance can be booted' } });
  });

  it('boots once however often it is asked, with the page\'s embedder policy', async () => {
    const container = new FakeContainer();
    const { env, boots } = environment(container);
    const [a, b] = await Promise.all([env.boot(), env.boot()]);
    await env.boot();
    expect(a).toEqual({ state: 'ready' });
    expect(b).toBe(a);
    expect(boots).toEqual([{ coep: 'credentialless', workdirName: 'project' }]);
  });

  it('has one environment per page', async () => {
    let boots = 0;
    const first = pageEnvironment({ features: ISOLATED, bootContainer: async () => (boots++, new FakeContainer()), loadToolchain: async () => ({}) });
    const second = pageEnvironment({ features: { crossOriginIsolated: false, sharedArrayBuffer: false } });
    expect(second).toBe(first);
    await first.boot();
    await second.boot();
    expect(boots).toBe(1);
  });

  it('refuses commands before it is ready', async () => {
    const { env } = environment(new FakeContainer());
    await expect(env.platform(['check'])).rejects.toThrow('not booted');
  });
});

describe('the project and the CLI in the container', () => {
  it('mounts the project, then syncs only the difference, removing deleted files', async () => {
    const container = new FakeContainer();
    const { env } = environment(container);
    await env.boot();
    await env.mount({ 'app.manifest.json': '{}', 'src/a.ts': 'a', 'src/b.ts': 'b' });
    expect([...container.files.keys()].sort()).toEqual(['app.manifest.json', 'src/a.ts', 'src/b.ts']);
    await env.mount({ 'app.manifest.json': '{}', 'src/a.ts': 'A' });
    expect(Object.fromEntries(container.files)).toEqual({ 'app.manifest.json': '{}', 'src/a.ts': 'A' });
    expect(container.mounts.at(-1)).toEqual({ src: { directory: { 'a.ts': { file: { contents: 'A' } } } } });
    await env.mount({ 'app.manifest.json': '{}', 'src/a.ts': 'A' });
    expect(container.mounts).toHaveLength(2);
  });

  it('runs `platform <args>` as node on the CLI bundle, installing the toolchain once first', async () => {
    const container = new FakeContainer((command, args) => (command === 'node' ? { output: ['✓ todo: ', 'checked\r\n'], exit: 0 } : { output: ['added 4 packages'], exit: 0 }));
    const { env } = environment(container);
    await env.boot();
    const setup: string[] = [];
    const process = await env.platform(['check', '--json'], { onSetup: (text) => setup.push(text), terminal: { cols: 80, rows: 24 } });
    expect(await readAll(process.output)).toBe('✓ todo: checked\r\n');
    expect(await process.exit).toBe(0);
    expect(container.files.get('.platform-toolchain/cli.mjs')).toBe('console.log(1)');
    expect(container.spawned).toEqual([
      { command: 'npm', args: ['install', '--no-audit', '--no-fund', '--loglevel=error'], cwd: '/home/project/.platform-toolchain' },
      { command: 'node', args: ['/home/project/.platform-toolchain/cli.mjs', 'check', '--json'], cwd: '/home/project', terminal: { cols: 80, rows: 24 } },
    ]);
    expect(setup.join('')).toContain('npm install');
    await env.platform(['test']);
    expect(container.spawned.map((s) => s.command)).toEqual(['npm', 'node', 'node']);
    expect(container.spawned[2]!.args).toEqual(['/home/project/.platform-toolchain/cli.mjs', 'test']);
  });

  it('says why the toolchain could not be installed, and tries again on the next command', async () => {
    let attempts = 0;
    const container = new FakeContainer((command) => (command === 'npm' ? (attempts++, { output: ['npm ERR! network request failed'], exit: 1 }) : { output: [], exit: 0 }));
    const { env } = environment(container);
    await env.boot();
    await expect(env.platform(['check'])).rejects.toThrow(/exited with 1:\nnpm ERR! network request failed/);
    await expect(env.platform(['check'])).rejects.toThrow(/exited with 1/);
    expect(attempts).toBe(2);
  });

  it('installs the app\'s dependencies only when package.json declares some, and reads node_modules back', async () => {
    const container = new FakeContainer();
    const { env } = environment(container);
    await env.boot();
    await env.mount({ 'package.json': '{"dependencies":{}}' });
    expect(await env.installDependencies()).toBeUndefined();
    await env.mount({ 'package.json': 'not json' });
    expect(await env.installDependencies()).toBeUndefined();
    await env.mount({ 'package.json': '{"dependencies":{"nanoid":"^5.0.0"}}' });
    const install = await env.installDependencies();
    expect(await install!.exit).toBe(0);
    expect(container.spawned.at(-1)).toMatchObject({ command: 'npm', args: ['install', '--no-audit', '--no-fund'], cwd: '/home/project' });
    // What npm would have written:
    container.files.set('node_modules/nanoid/package.json', '{"name":"nanoid","types":"index.d.ts"}');
    container.files.set('node_modules/nanoid/index.js', 'export const nanoid = () => "x";');
    container.files.set('node_modules/.bin/nanoid', '#!/usr/bin/env node');
    const modules = await env.nodeModules();
    expect(Object.keys(modules).sort()).toEqual(['node_modules/nanoid/index.js', 'node_modules/nanoid/package.json']);
    expect(new TextDecoder().decode(modules['node_modules/nanoid/index.js'])).toBe('export const nanoid = () => "x";');
  });

  it('stops reading node_modules past its limits, and reads nothing when none is installed', async () => {
    const container = new FakeContainer();
    container.files.set('node_modules/a/index.js', '12345');
    container.files.set('node_modules/b/index.js', '12345');
    await expect(collectNodeModules(container.fs, 'node_modules', { files: 1, bytes: 1e6 })).rejects.toThrow('larger than the playground reads');
    await expect(collectNodeModules(container.fs, 'node_modules', { files: 10, bytes: 8 })).rejects.toThrow('larger than');
    expect(await collectNodeModules(new FakeContainer().fs, 'node_modules')).toEqual({});
  });

  it('tears the container down on dispose, including one that finishes booting afterwards', async () => {
    const container = new FakeContainer();
    const { env } = environment(container);
    await env.boot();
    env.dispose();
    expect(container.torndown).toBe(true);

    let finish!: (c: ContainerApi) => void;
    const late = new FakeContainer();
    const slow = new WebContainerEnvironment({ features: ISOLATED, bootContainer: () => new Promise((resolve) => (finish = resolve)), loadToolchain: async () => ({}), timeoutMs: 1 });
    await slow.boot();
    slow.dispose();
    finish(late);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(late.torndown).toBe(true);
    expect(slow.status.state).toBe('unavailable');
  });
});
