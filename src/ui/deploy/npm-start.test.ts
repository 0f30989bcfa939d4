/**
 * `npm start` (scripts/start.mjs) tells the playground which control plane it started: the script runs
 * in a copy of the project whose `vite` and `tsx` are stand-ins that write down the arguments and
 * environment they were given, then wait to be stopped, as the real ones do.
 */
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';

interface Seen {
  args: string[];
  env: Record<string, string | undefined>;
}

let project: string | undefined;
afterEach(() => {
  if (project) rmSync(project, { recursive: true, force: true });
  project = undefined;
});

/** Runs the start script with `env`; resolves with what the playground's and the control plane's processes were given. */
async function npmStart(env: Record<string, string>): Promise<{ vite: Seen; controlPlane: Seen }> {
  project = mkdtempSync(join(tmpdir(), 'platform-npm-start-'));
  mkdirSync(join(project, 'scripts'));
  copyFileSync(new URL('../../../scripts/start.mjs', import.meta.url), join(project, 'scripts', 'start.mjs'));
  const bin = join(project, 'node_modules', '.bin');
  mkdirSync(bin, { recursive: true });
  for (const name of ['vite', 'tsx']) {
    const record = join(project, `${name}.json`);
    const standIn = `#!${process.execPath}\nrequire('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ args: process.argv.slice(2), env: process.env }));\nsetInterval(() => {}, 1000);\n`;
    writeFileSync(join(bin, name), standIn);
    chmodSync(join(bin, name), 0o755);
  }
  const child = spawn(process.execPath, [join(project, 'scripts', 'start.mjs')], { cwd: project, env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
  const exited = new Promise((done) => child.once('exit', done));
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
    return { vite: seen[0]!, controlPlane: seen[1]! };
  } finally {
    child.kill('SIGTERM');
    await exited;
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
