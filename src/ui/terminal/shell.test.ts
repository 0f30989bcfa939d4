import { describe, expect, it } from 'vitest';
import { WebContainerEnvironment, type NodeEnvironment } from '../../adapters/webcontainer';
import type { ContainerApi, ContainerProcess } from '../../adapters/webcontainer/container-api';
import type { CommandOptions, CommandOutcome } from '../compiler-client';
import { installUnavailable, modeOf, Shell, wrapWords, type ShellIo } from './shell';

/** Records what the terminal would show. */
function screen(): ShellIo & { text: string; cleared: number } {
  const io = { text: '', cleared: 0, write: (t: string) => void (io.text += t), clear: () => void io.cleared++, size: () => ({ cols: 100, rows: 20 }) };
  return io;
}

/** The worker's side, as the compiler client answers: the outcome given, the options recorded. */
function compiler(answer: (args: readonly string[], options: CommandOptions) => Promise<CommandOutcome>) {
  const calls: Array<{ args: readonly string[]; files: Record<string, string | Uint8Array>; options: CommandOptions }> = [];
  return { calls, command: (args: readonly string[], files: Record<string, string | Uint8Array>, options: CommandOptions) => (calls.push({ args, files, options }), answer(args, options)) };
}

const offline = (): NodeEnvironment => new WebContainerEnvironment({ features: { crossOriginIsolated: false, sharedArrayBuffer: true }, loadToolchain: async () => ({}) });
const FILES = { 'app.manifest.json': '{}' };
const noTests = async function* () {};

describe('Shell without a WebContainer', () => {
  it('runs platform <args> through the worker with the files as they are, and prints its text with CRLF', async () => {
    const env = offline();
    await env.boot();
    const worker = compiler(async () => ({ output: 'line 1\nline 2', exitCode: 1 }));
    const shell = new Shell({ files: () => FILES, compiler: worker, environment: env, runTests: noTests });
    const io = screen();
    expect(await shell.run('platform check --json', io, new AbortController().signal)).toBe(1);
    expect(io.text).toBe('line 1\r\nline 2\r\n');
    expect(worker.calls[0]!.args).toEqual(['check', '--json']);
    expect(worker.calls[0]!.files).toBe(FILES);
    expect(worker.calls[0]!.options.installUnavailable).toBe('Packages cannot be installed in the browser playground unless a WebContainer is available (here: this page is not cross-origin isolated (it needs the headers Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: credentialless)).');
    expect(shell.mode.kind).toBe('browser');
    expect(shell.mode.text).toMatch(/^In-browser commands — WebContainer unavailable: this page is not cross-origin isolated/);
  });

  it('streams a streaming command\'s lines and hands its tests to the page\'s runner with the Ctrl-C signal', async () => {
    const env = offline();
    let runnerSignal: AbortSignal | undefined;
    const worker = compiler(async (_args, options) => {
      options.onOutput('✓ a › b (1 ms)');
      for await (const _ of options.runTests!({ manifest: {} as never, serverCode: '', tests: [] })) void _;
      options.onOutput('1 passed, 0 failed');
      return { output: '', exitCode: 0 };
    });
    const shell = new Shell({ files: () => FILES, compiler: worker, environment: env, runTests: (_run, signal) => ((runnerSignal = signal), noTests()) });
    const io = screen();
    const stop = new AbortController();
    expect(await shell.run('npx platform test', io, stop.signal)).toBe(0);
    expect(io.text).toBe('✓ a › b (1 ms)\r\n1 passed, 0 failed\r\n');
    expect(runnerSignal).toBe(stop.signal);
  });

  it('stops waiting on Ctrl-C (exit 130) and prints nothing the command says afterwards', async () => {
    let finish!: (o: CommandOutcome) => void;
    let options!: CommandOptions;
    const worker = compiler((_a, o) => ((options = o), new Promise((resolve) => (finish = resolve))));
    const shell = new Shell({ files: () => FILES, compiler: worker, environment: offline(), runTests: noTests });
    const io = screen();
    const stop = new AbortController();
    const running = shell.run('platform build', io, stop.signal);
    await Promise.resolve();
    stop.abort();
    expect(await running).toBe(130);
    options.onOutput('late');
    finish({ output: 'late too', exitCode: 0 });
    expect(io.text).toBe('');
  });

  it('refuses Node-only commands and unknown programs; help and clear are its own', async () => {
    const env = offline();
    await env.boot();
    const worker = compiler(async () => ({ output: '', exitCode: 0 }));
    const shell = new Shell({ files: () => FILES, compiler: worker, environment: env, runTests: noTests });
    const io = screen();
    const signal = new AbortController().signal;
    expect(await shell.run('platform deploy --environment preview', io, signal)).toBe(2);
    expect(io.text.replace(/\r\n/g, ' ')).toMatch(/^platform deploy needs Node: .* \(WebContainer unavailable: this page is not cross-origin isolated/);
    expect(await shell.run('ls -la', io, signal)).toBe(127);
    expect(await shell.run('npx vite', io, signal)).toBe(127);
    expect(await shell.run('clear', io, signal)).toBe(0);
    expect(io.cleared).toBe(1);
    io.text = '';
    expect(await shell.run('help', io, signal)).toBe(0);
    expect(io.text).toContain('platform test [--only <name>]');
    expect(worker.calls).toEqual([]);
  });
});

describe('wrapWords', () => {
  it('breaks between words at the width, keeps paragraphs and words longer than a line', () => {
    expect(wrapWords('one two three four', 9)).toBe('one two\r\nthree\r\nfour\r\n');
    expect(wrapWords('a\nb c', 3)).toBe('a\r\nb c\r\n');
    expect(wrapWords('see https://x--5173.local-credentialless.webcontainer-api.io now', 20)).toBe('see\r\nhttps://x--5173.local-credentialless.webcontainer-api.io\r\nnow\r\n');
    expect(wrapWords('short', 80)).toBe('short\r\n');
  });
});

describe('platform dev in the terminal', () => {
  it('says at once why it cannot run when StackBlitz cannot be reached, without asking the worker', async () => {
    const env = new WebContainerEnvironment({
      features: { crossOriginIsolated: true, sharedArrayBuffer: true },
      bootContainer: () => new Promise(() => undefined),
      preflight: { origin: 'https://stackblitz.com', reach: () => Promise.reject(new TypeError('Failed to fetch')) },
      loadToolchain: async () => ({}),
      setTimeout: () => undefined,
    });
    await env.boot();
    const worker = compiler(async () => ({ output: '', exitCode: 0 }));
    const shell = new Shell({ files: () => FILES, compiler: worker, environment: env, runTests: noTests });
    const io = screen();
    expect(await shell.run('platform dev --port 0', io, new AbortController().signal)).toBe(2);
    // Broken between words to the terminal's 100 columns.
    expect(io.text).toBe('platform dev needs Node: it runs in the terminal when a WebContainer is available (WebContainer\r\nunavailable: https://stackblitz.com, which serves WebContainers, cannot be reached from this page\r\n(offline, or blocked)), or with the CLI on your machine.\r\n');
    expect(shell.mode.text).toBe('In-browser commands — WebContainer unavailable: https://stackblitz.com, which serves WebContainers, cannot be reached from this page (offline, or blocked)');
    expect(worker.calls).toEqual([]);
  });

  it('runs the real CLI in the container, says where its server is reachable, and stops it on Ctrl-C', async () => {
    const readyListeners = new Set<(port: number, url: string) => void>();
    let kill!: () => void;
    const spawned: string[] = [];
    const container: ContainerApi = {
      workdir: '/home/project',
      mount: async () => undefined,
      spawn: async (command, args) => {
        spawned.push([command, ...args].join(' '));
        if (command !== 'node') return { output: new ReadableStream({ start: (c) => c.close() }), input: new WritableStream(), exit: Promise.resolve(0), kill: () => undefined };
        let exit!: (code: number) => void;
        let controller!: ReadableStreamDefaultController<string>;
        const output = new ReadableStream<string>({ start: (c) => void (controller = c) });
        kill = () => (controller.close(), exit(130));
        queueMicrotask(() => {
          controller.enqueue('platform dev: serving on http://127.0.0.1:5173\r\n');
          for (const listener of readyListeners) listener(5173, 'https://x--5173.local-credentialless.webcontainer-api.io');
        });
        return { output, input: new WritableStream(), exit: new Promise((resolve) => (exit = resolve)), kill: () => kill() };
      },
      fs: { writeFile: async () => undefined, mkdir: async (p) => p, rm: async () => undefined, readdir: async () => [], readFile: async () => new Uint8Array() },
      teardown: () => undefined,
      on: (_event, listener) => (readyListeners.add(listener), () => readyListeners.delete(listener)),
    };
    const env = new WebContainerEnvironment({ features: { crossOriginIsolated: true, sharedArrayBuffer: true }, bootContainer: async () => container, loadToolchain: async () => ({ 'cli.mjs': '' }) });
    await env.boot();
    const shell = new Shell({ files: () => FILES, compiler: compiler(async () => ({ output: '', exitCode: 0 })), environment: env, runTests: noTests });
    const io = screen();
    const stop = new AbortController();
    const running = shell.run('platform dev', io, stop.signal);
    await expect.poll(() => io.text).toContain('Serving port 5173 of the WebContainer at https://x--5173.local-credentialless.webcontainer-api.io');
    expect(io.text).toContain('platform dev: serving on http://127.0.0.1:5173');
    stop.abort();
    expect(await running).toBe(130);
    expect(spawned.at(-1)).toBe('node /home/project/.platform-toolchain/cli.mjs dev');
    // The listener went with the process.
    expect(readyListeners.size).toBe(0);
  });
});

describe('Shell with a WebContainer', () => {
  it('mounts the files, installs changed dependencies once, then runs the real CLI in the container', async () => {
    const spawned: string[] = [];
    const mounted: unknown[] = [];
    const process = (output: string): ContainerProcess => ({
      output: new ReadableStream({ start: (c) => (c.enqueue(output), c.close()) }),
      input: new WritableStream(),
      exit: Promise.resolve(0),
      kill: () => undefined,
    });
    const container: ContainerApi = {
      workdir: '/home/project',
      mount: async (tree) => void mounted.push(tree),
      spawn: async (command, args) => (spawned.push([command, ...args].join(' ')), process(command === 'node' ? '✓ todo\r\n' : '')),
      fs: { writeFile: async () => undefined, mkdir: async (p) => p, rm: async () => undefined, readdir: async () => [], readFile: async () => new Uint8Array() },
      teardown: () => undefined,
    };
    const env = new WebContainerEnvironment({ features: { crossOriginIsolated: true, sharedArrayBuffer: true }, bootContainer: async () => container, loadToolchain: async () => ({ 'cli.mjs': '' }) });
    await env.boot();
    let files: Record<string, string> = { ...FILES, 'package.json': '{"dependencies":{"nanoid":"5.0.0"}}' };
    const deps: unknown[] = [];
    const worker = compiler(async () => ({ output: 'not used', exitCode: 0 }));
    const shell = new Shell({ files: () => files, compiler: worker, environment: env, runTests: noTests, onDependencies: (d) => deps.push(d) });
    expect(modeOf(env.status).kind).toBe('webcontainer');
    const io = screen();
    const signal = new AbortController().signal;
    expect(await shell.run('platform check', io, signal)).toBe(0);
    expect(await shell.run('platform check', io, signal)).toBe(0);
    files = { ...files, 'package.json': '{"dependencies":{}}' };
    expect(await shell.run('platform check', io, signal)).toBe(0);
    expect(spawned).toEqual([
      'npm install --no-audit --no-fund',
      'npm install --no-audit --no-fund --loglevel=error',
      'node /home/project/.platform-toolchain/cli.mjs check',
      'node /home/project/.platform-toolchain/cli.mjs check',
      'node /home/project/.platform-toolchain/cli.mjs check',
    ]);
    expect(io.text).toContain('✓ todo\r\n');
    expect(deps).toEqual([{}]);
    expect(worker.calls).toEqual([]);
    expect(installUnavailable(env.status)).toContain('the WebContainer is not used by this command');
  });
});
