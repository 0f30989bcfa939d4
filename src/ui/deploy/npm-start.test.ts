/**
 * `npm start` (scripts/start.mjs) tells the playground which control plane it started: the script runs
 * in a copy of the project whose `vite` and `tsx` are stand-ins that write down the arguments and
 * environment they were given, then wait to be stopped, as the real ones do; and a SIGTERM or SIGINT to
 * the script (a service manager, Ctrl-C) ends both.
 */
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';

interface Seen {
  pid: number;
  args: string[];
  env: Record<string, string | undefined>;
}

let project: string | undefined;
/** The stand-ins started: a test that fails leaves none of them behind. */
const standIns: number[] = [];
afterEach(() => {
  for (const pid of standIns.splice(0)) if (running(pid)) process.kill(pid, 'SIGKILL');
  if (project) rmSync(project, { recursive: true, force: true });
  project = undefined;
});

/** Runs the start script with `env` until its stand-ins have both started; `stop` sends it a signal and waits for it to end. */
async function startScript(env: Record<string, string>): Promise<{ vite: Seen; controlPlane: Seen; stop(signal: NodeJS.Signals): Promise<void> }> {
  project = mkdtempSync(join(tmpdir(), 'platform-npm-start-'));
  mkdirSync(join(project, 'scripts'));
  copyFileSync(new URL('../../../scripts/start.mjs', import.meta.url), join(project, 'scripts', 'start.mjs'));
  const bin = join(project, 'node_modules', '.bin');
  mkdirSync(bin, { recursive: true });
  for (const name of ['vite', 'tsx']) {
    const record = join(project, `${name}.json`);
    const standIn = `#!${process.execPath}\nrequire('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ pid: process.pid, args: process.argv.slice(2), env: process.env }));\nsetInterval(() => {}, 1000);\n`;
    writeFileSync(join(bin, name), standIn);
    chmodSync(join(bin, name), 0o755);
  }
  const child = spawn(process.execPath, [join(project, 'scripts', 'start.mjs')], { cwd: project, env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async (signal: NodeJS.Signals) => {
    child.kill(signal);
    await exited;
  };
  try {
    const records = ['vite', 'tsx'].map((name) => join(project!, `${name}.json`));
    await expect.poll(() => records.every((path) => existsSync(path)), { timeout: 60_000 }).toBe(true);
    // Written, but perhaps not yet whole: read once both parse.
    let seen: Seen[] = [];
    await expect.poll(() => {
      try {
        seen = records.map((path) => JSON.parse(readFileSync(path, 'utf8')) as Seen);
        return true;
      } catch {
        return false;
      }
    }).toBe(true);
    standIns.push(...seen.map(({ pid }) => pid));
    return { vite: seen[0]!, controlPlane: seen[1]!, stop };
  } catch (error) {
    await stop('SIGTERM');
    throw error;
  }
}

/** What the playground's and the control plane's processes were given; the script is stopped after. */
async function npmStart(env: Record<string, string>): Promise<{ vite: Seen; controlPlane: Seen }> {
  const started = await startScript(env);
  await started.stop('SIGTERM');
  return started;
}

/** Whether a process of this id is running (signal 0 checks without sending anything). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

it('gives the playground the URL of the control plane it starts, on the port it starts it on', async () => {
  const { vite, controlPlane } = await npmStart({ PLATFORM_CONTROL_PORT: '4987', PLATFORM_PLAYGROUND_PORT: '5987' });
  expect(controlPlane.args).toEqual(expect.arrayContaining(['src/control-plane/main.ts', '--port', '4987']));
  expect(vite.env.VITE_PLATFORM_CONTROL_URL).toBe('http://localhost:4987');
  expect(vite.args).toEqual(expect.arrayContaining(['--port', '5987']));
});

it('gives the default port when none is set, and the public origin when the control plane is given one', async () => {
  expect((await npmStart({})).vite.env.VITE_PLATFORM_CONTROL_URL).toBe('http://localhost:4310');
  rmSync(project!, { recursive: true, force: true });
  expect((await npmStart({ PLATFORM_CONTROL_PORT: '4987', PLATFORM_PUBLIC_ORIGIN: 'http://control.localhost:4987' })).vite.env.VITE_PLATFORM_CONTROL_URL).toBe('http://control.localhost:4987');
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  it(`stops both servers when it is sent ${signal}`, async () => {
    const started = await startScript({ PLATFORM_CONTROL_PORT: '4987', PLATFORM_PLAYGROUND_PORT: '5987' });
    const pids = [started.vite.pid, started.controlPlane.pid];
    expect(pids.map(running)).toEqual([true, true]);
    await started.stop(signal);
    // The script exits once both have: neither is left running (nor left as a zombie of the script's).
    expect(pids.map(running)).toEqual([false, false]);
  });
}
