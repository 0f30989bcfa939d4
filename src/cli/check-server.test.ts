/**
 * The check server (bin/check-server.mjs, check-server.ts), as people meet it: `platform check` through
 * bin/platform and bin/platform.mjs answers exactly as a check in a process of its own, starts a server
 * when none runs and uses it afterwards, survives a server killed at any moment (mid-check, or leaving its
 * socket behind), leaves one server when checks start together, does not wait on a server that cannot take
 * the request (stopped), ends an idle server, starts none under CI, and never talks to a socket in a folder
 * another user could write (an attacker's stand-in server there is sent nothing). Each test has a socket
 * folder of its own (XDG_RUNTIME_DIR), and every server is ended afterwards.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildIdentity, SERVE_VARIABLE, serverPaths } from '../../bin/check-server.mjs';
import { PLATFORM_LAUNCHER, PLATFORM_MJS, ROOT, runCli, startCli, type CliRun } from '../testing/cli';
import { alive, eventually } from '../testing/control-plane';
import { generateApp } from './generated-app';

const made: string[] = [];
const servers: number[] = [];
/** Every test's socket: whatever serves on one is ended after the test, even one a failing test did not note. */
const sockets: string[] = [];

function folder(prefix: string): string {
  const path = mkdtempSync(join(tmpdir(), prefix));
  made.push(path);
  return path;
}

function template(name: string, edit?: (text: string) => string): string {
  const directory = join(folder('platform-check-server-app-'), name);
  cpSync(join(ROOT, 'templates', name), directory, { recursive: true, filter: (source) => !source.endsWith('/.platform') });
  if (edit) writeFileSync(join(directory, 'src/server/index.ts'), edit(readFileSync(join(directory, 'src/server/index.ts'), 'utf8')));
  return directory;
}

/** The live processes started as check servers on `socket` (Linux /proc: their environment names it). */
function serversOn(socket: string): number[] {
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).map(Number).filter((pid) => {
    try {
      return alive(pid) && readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`${SERVE_VARIABLE}=${socket}`);
    } catch {
      return false;
    }
  });
}

/** A socket folder of the test's own, and the paths of this build's server in it. */
function runtime() {
  const base = folder('platform-check-server-run-');
  const paths = serverPaths(join(base, `platform-${process.getuid!()}`), buildIdentity(pathToFileURL(`${ROOT}/`)));
  sockets.push(paths.socket);
  const pid = () => (existsSync(paths.pid) ? Number(readFileSync(paths.pid, 'utf8')) : undefined);
  return { env: { XDG_RUNTIME_DIR: base, PLATFORM_CHECK_SERVER: '', CI: '' }, ...paths, base, pidOf: pid };
}

async function check(directory: string, env: Record<string, string>, bin = PLATFORM_LAUNCHER, json = true): Promise<CliRun> {
  const run = await runCli(['check', ...(json ? ['--json'] : []), directory], { bin, env: { PLATFORM_CLI_SOURCES: '', ...env } });
  return run;
}

const alone = { PLATFORM_CHECK_SERVER: '0' };
const same = (run: CliRun) => ({ code: run.code, stdout: run.stdout, stderr: run.stderr });

afterEach(async () => {
  for (const pid of [...servers.splice(0), ...sockets.splice(0).flatMap(serversOn)]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Ended already.
    }
  }
});

afterAll(() => {
  for (const path of made) rmSync(path, { recursive: true, force: true });
});

describe('platform check through a check server', () => {
  it('answers as a check in a process of its own, then keeps serving from the same warm process', async () => {
    const { env, pidOf, socket } = runtime();
    const good = template('todo');
    const broken = template('endpoints', (text) => `${text}\nconst wrong: number = 'text';\n`);

    const first = await check(good, env);
    const pid = pidOf();
    expect(pid, 'the first check started a server').toBeGreaterThan(0);
    servers.push(pid!);
    expect(existsSync(socket)).toBe(true);
    expect(same(first)).toEqual(same(await check(good, alone)));

    // A project with a type error, in both output forms and through both entries, from the same server.
    for (const [bin, json] of [[PLATFORM_LAUNCHER, true], [PLATFORM_MJS, false]] as const) {
      const served = await check(broken, env, bin, json);
      expect(served.code).toBe(1);
      expect(served.stdout + served.stderr).toContain('DG1205');
      rmSync(join(broken, '.platform'), { recursive: true, force: true });
      expect(same(served)).toEqual(same(await check(broken, alone, bin, json)));
      rmSync(join(broken, '.platform'), { recursive: true, force: true });
    }
    expect(pidOf(), 'the same server answered').toBe(pid);
    expect(alive(pid!)).toBe(true);
  });

  it('is answered still when the server is killed mid-check, and a socket a killed server left is taken over', async () => {
    const { env, pidOf, socket } = runtime();
    await check(template('blank'), env);
    const first = pidOf()!;
    servers.push(first);

    // A 200-file app takes the server seconds: it is killed while it checks.
    const big = folder('platform-check-server-big-');
    for (const [path, text] of generateApp(200).files) {
      mkdirSync(dirname(join(big, path)), { recursive: true });
      writeFileSync(join(big, path), text);
    }
    const running = startCli(['check', '--json', big], { bin: PLATFORM_LAUNCHER, env: { PLATFORM_CLI_SOURCES: '', ...env } });
    await new Promise((wake) => setTimeout(wake, 400));
    process.kill(first, 'SIGKILL');
    const answered = await running.ended;
    // The client asked a server of its starting again, in the dead one's place.
    const second = pidOf()!;
    servers.push(second);
    expect(second).not.toBe(first);
    rmSync(join(big, '.platform'), { recursive: true, force: true });
    expect(same(answered)).toEqual(same(await check(big, alone)));
    expect(answered.code).toBe(0);

    // Killed idle, a server leaves its socket; the next check starts one that takes it over.
    process.kill(second, 'SIGKILL');
    expect(await eventually(() => !alive(second), 20_000), 'the killed server ended').toBe(true);
    expect(existsSync(socket), 'the killed server left its socket').toBe(true);
    expect((await check(template('todo'), env)).code).toBe(0);
    const third = pidOf()!;
    servers.push(third);
    expect([first, second]).not.toContain(third);
    expect(alive(third)).toBe(true);
  });

  it('answers checks started together with no server running, and one server stays', async () => {
    const { env, pidOf, socket } = runtime();
    const apps = ['todo', 'files', 'team-board'].map((name) => template(name));
    const runs = await Promise.all(apps.map((app) => check(app, env)));
    const pid = pidOf()!;
    servers.push(pid, ...serversOn(socket));
    for (const [i, app] of apps.entries()) {
      rmSync(join(app, '.platform'), { recursive: true, force: true });
      expect(same(runs[i]!)).toEqual(same(await check(app, alone)));
    }
    // Each check may have started a server; those that found the socket taken ended.
    expect(await eventually(() => serversOn(socket).length === 1, 40_000), 'one server left').toBe(true);
    expect(serversOn(socket)).toEqual([pid]);
  });

  it('does not wait on a server that cannot take the request (stopped, or busy with another check): the check runs alone', async () => {
    const { env, pidOf } = runtime();
    await check(template('blank'), env);
    const pid = pidOf()!;
    servers.push(pid);
    process.kill(pid, 'SIGSTOP');
    try {
      const app = template('endpoints', (text) => `${text}\nconst wrong: number = 'text';\n`);
      const started = Date.now();
      const run = await check(app, { ...env, PLATFORM_CHECK_SERVER_TAKE_MS: '1000' });
      const took = Date.now() - started;
      rmSync(join(app, '.platform'), { recursive: true, force: true });
      expect(same(run)).toEqual(same(await check(app, alone)));
      expect(run.code).toBe(1);
      // Not the 120-second test limit: the client gave the stopped server a second, then checked by itself.
      expect(took).toBeLessThan(60_000);
      expect(pidOf(), 'no second server was started beside the stopped one').toBe(pid);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  });

  it('ends a server idle for PLATFORM_CHECK_SERVER_IDLE_MS, removing its socket', async () => {
    const { env, pidOf, socket, pid: pidFile } = runtime();
    expect((await check(template('blank'), { ...env, PLATFORM_CHECK_SERVER_IDLE_MS: '500' })).code).toBe(0);
    const pid = pidOf()!;
    servers.push(pid);
    expect(await eventually(() => !alive(pid), 20_000), 'the idle server ended').toBe(true);
    expect(existsSync(socket)).toBe(false);
    expect(existsSync(pidFile)).toBe(false);
  });

  it('starts no server under CI or with PLATFORM_CHECK_SERVER=0', async () => {
    const { env, base } = runtime();
    const app = template('blank');
    for (const [bin, extra] of [[PLATFORM_LAUNCHER, { CI: 'true' }], [PLATFORM_MJS, { CI: '1' }], [PLATFORM_LAUNCHER, { PLATFORM_CHECK_SERVER: '0' }], [PLATFORM_MJS, { PLATFORM_CHECK_SERVER: '0' }]] as const) {
      expect((await check(app, { ...env, ...extra }, bin)).code).toBe(0);
      expect(existsSync(join(base, `platform-${process.getuid!()}`)), `${JSON.stringify(extra)}`).toBe(false);
    }
  });

  it('answers only check requests of its own build', async () => {
    const { env, pidOf, socket } = runtime();
    await check(template('blank'), env);
    servers.push(pidOf()!);
    const ask = (line: string) =>
      new Promise<string>((resolve) => {
        let said = '';
        const client = connect(socket, () => client.write(line));
        client.on('data', (chunk) => (said += chunk.toString()));
        client.on('close', () => resolve(said));
        client.on('error', () => resolve(said));
      });
    const request = { args: ['check', '--json', tmpdir()], cwd: tmpdir(), build: buildIdentity(pathToFileURL(`${ROOT}/`)), debug: false };
    // Each answer comes after the server said it took the request.
    const answer = async (line: string) => {
      const [taken, reply, ...more] = (await ask(line)).split('\n').filter(Boolean).map((said) => JSON.parse(said) as unknown);
      expect([taken, more]).toEqual([{ taken: true }, []]);
      return reply;
    };
    expect(await answer(`${JSON.stringify({ ...request, args: ['deploy', '--json'] })}\n`)).toEqual({ refused: 'the server answers only `check`' });
    expect(await answer(`${JSON.stringify({ ...request, build: 'another' })}\n`)).toEqual({ refused: 'the server is of another build of the CLI' });
    expect(await answer(`${JSON.stringify({ ...request, cwd: 'relative' })}\n`)).toEqual({ refused: 'not a check request' });
    expect(await ask('not json\n'), 'a line that is not JSON ends the connection').toBe('');
    expect(alive(pidOf()!), 'and the server serves on').toBe(true);
    expect((await check(template('blank'), env)).code).toBe(0);
  });
});

describe('the socket folder, as an attacker prepares it', () => {
  let impostor: Server | undefined;
  afterEach(() => impostor?.close());

  /** A stand-in server at the build's socket path that records what it is sent and answers a forged success. */
  async function plant(socket: string): Promise<string[]> {
    const heard: string[] = [];
    impostor = createServer((client) => {
      client.on('data', (chunk) => heard.push(chunk.toString()));
      client.end(`${JSON.stringify({ stdout: 'forged\n', stderr: '', exitCode: 0 })}\n`);
    });
    await new Promise<void>((listening) => impostor!.listen(socket, listening));
    return heard;
  }

  it('does not use a socket folder others can write', async () => {
    const { env, socket } = runtime();
    mkdirSync(dirname(socket), { mode: 0o777 });
    chmodSync(dirname(socket), 0o777);
    const heard = await plant(socket);
    const broken = template('endpoints', (text) => `${text}\nconst wrong: number = 'text';\n`);
    const run = await check(broken, env);
    expect(run.stdout).not.toContain('forged');
    expect(run.code).toBe(1);
    expect(heard, 'the stand-in was sent nothing').toEqual([]);
  });

  it('does not follow a link in the socket folder\'s place', async () => {
    const { env, socket, base } = runtime();
    const elsewhere = folder('platform-check-server-elsewhere-');
    chmodSync(elsewhere, 0o700);
    symlinkSync(elsewhere, join(base, `platform-${process.getuid!()}`));
    const heard = await plant(join(elsewhere, socket.slice(dirname(socket).length + 1)));
    const run = await check(template('blank'), env);
    expect(run.stdout).not.toContain('forged');
    expect(run.code).toBe(0);
    expect(heard).toEqual([]);
  });
});
