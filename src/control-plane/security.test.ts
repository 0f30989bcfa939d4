/**
 * Hosted app code as an attacker: a hostile app deployed through the real CLI tries to reach Node, the
 * file system, the network and the control plane, to spin forever and to hold 256 MiB buffers. Each
 * attempt is refused or contained, and the control plane and a neighbouring app keep answering.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeCompiler } from '../adapters/node/compiler';
import type { Compiler } from '../core/build/build';
import { startControlPlane, type Started } from './main';
import { HOSTILE } from './fixtures';
import { approveOverHttp, hostedRequest, platformOverLoopback, sendHuge } from './test-helpers';

const ROOT = join(import.meta.dirname, '../..');

let work: string;
let started: Started;
let shared: Compiler | undefined;
const compiler = async () => (shared ??= nodeCompiler());
let hostile: string;
let neighbour: string;

const platform = (cwd: string, args: string[], onStderr?: (text: string) => void) =>
  platformOverLoopback(args, { cwd, work, controlUrl: started.url, compiler, ...(onStderr ? { onStderr } : {}) });

function project(name: string, server?: string): string {
  const dir = join(work, name);
  cpSync(join(ROOT, 'templates/endpoints'), dir, { recursive: true });
  if (server) {
    writeFileSync(join(dir, 'src/server/index.ts'), server);
    writeFileSync(join(dir, 'src/client/main.tsx'), "document.body.textContent = 'hostile';\n");
    rmSync(join(dir, 'tests'), { recursive: true, force: true });
  }
  return dir;
}

const json = async (origin: string, path: string) => {
  const answer = await hostedRequest(origin, path);
  return { status: answer.status, body: JSON.parse(answer.text) as Record<string, unknown> };
};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-security-'));
  started = await startControlPlane({ dataDir: join(work, 'data'), port: 0, devicePollMs: 20, handlerDeadlineMs: 500, handlerGraceMs: 500 });
  let approval: Promise<Response> | undefined;
  const login = await platform(work, ['auth', 'login'], (text) => {
    const code = /code ([A-Z]{4}-[A-Z]{4})/.exec(text)?.[1];
    if (!code || approval) return;
    approval = approveOverHttp(started.url, code, 'mallory', started.plane.secrets.operatorSecret);
  });
  expect(login.code).toBe(0);
  const deployed = await platform(project('hostile', HOSTILE), ['deploy', '.']);
  expect(deployed.envelope.diagnostics).toEqual([]);
  hostile = deployed.envelope.result.url;
  neighbour = (await platform(project('neighbour'), ['deploy', '.'])).envelope.result.url;
}, 180_000);

afterAll(async () => {
  await started?.stop();
  rmSync(work, { recursive: true, force: true });
});

async function stillServing(): Promise<void> {
  expect((await fetch(`${started.url}/v0/health`)).status).toBe(200);
  expect((await json(neighbour, '/api/greet/x')).body).toEqual({ message: 'Hello, x!' });
}

describe('a hostile app is contained', () => {
  it('has no process, no Node built-ins, no code from strings', async () => {
    const { status, body } = await json(hostile, '/api/node');
    expect(status).toBe(200);
    expect(body).toMatchObject({ process: 'undefined', globalProcess: 'undefined', require: 'undefined' });
    for (const key of ['getBuiltinModule', 'functionThis']) expect(body[key]).toMatch(/^refused: /);
    expect(String(body.functionThis)).toContain('Code generation from strings disallowed');
    await stillServing();
  });

  it('import("node:fs") is refused before anything runs, and the app already deployed keeps serving', async () => {
    const importing = HOSTILE.replace("'GET /api/spin'", "'GET /api/fs': endpoint(async () => Response.json(Object.keys(await import('node:fs')))),\n    'GET /api/spin'");
    const refused = await platform(project('importing', importing), ['deploy', '.']);
    expect(refused.code).toBe(1);
    expect(JSON.stringify(refused.envelope.diagnostics)).toContain('server-runtime built-in module');
    expect((await json(hostile, '/api/node')).status).toBe(200);
    await stillServing();
  });

  it('cannot reach the control plane, a neighbour, or any address', async () => {
    for (const target of [`${started.url}/v0/health`, `http://127.0.0.1:${started.port}/v0/apps`, neighbour, 'http://10.0.0.1/', 'https://example.com/']) {
      const { body } = await json(hostile, `/api/fetch?url=${encodeURIComponent(target)}`);
      expect(body.fetch, target).toMatch(/^refused: /);
    }
    await stillServing();
  });

  it('keeps the engine\'s keys out of every file: they reach the engine through its environment only', async () => {
    await stillServing(); // both apps' engines are running, whatever ran before
    const { readdirSync, readFileSync } = await import('node:fs');
    const engines = join(work, 'data', 'engines');
    const dir = readdirSync(engines).find((name) => name.endsWith('.preview') && readFileSync(join(engines, name, 'config.capnp'), 'utf8').includes('START'));
    expect(dir).toBeDefined();
    expect(readFileSync(join(engines, dir!, 'config.capnp'), 'utf8')).not.toMatch(/identityKey|cursorSecret/);
  });

  it('a handler that never yields is answered 504 and its engine restarted; the others keep answering', async () => {
    const began = Date.now();
    const spun = await json(hostile, '/api/spin');
    expect(spun.status).toBe(504);
    expect(spun.body).toMatchObject({ error: { code: 'handler_deadline_exceeded' } });
    // Not a hang: the watchdog answered (how soon is the bench's to measure; a loaded machine is slow).
    expect(Date.now() - began).toBeLessThan(20_000);
    await stillServing();
    expect((await json(hostile, '/api/node')).status).toBe(200);
  });

  it('a 1.5 GB chunked body to the app is answered 413 past its requestBytes, the control plane\'s memory flat', async () => {
    const origin = new URL(hostile);
    const total = 1536 * 1024 * 1024;
    const before = process.memoryUsage().rss;
    const sent = await sendHuge(started.port, '/api/node', total, { host: origin.host });
    expect(sent.status).toBe(413);
    expect(sent.written).toBeLessThan(total);
    expect((sent.peakRss - before) / 1024 / 1024).toBeLessThan(300);
    await stillServing();
  }, 60_000);

  it('256 MiB buffers held across requests: the engine is restarted past its memory limit', async () => {
    const counts: number[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await json(hostile, '/api/hold');
      if (answer.status === 200) counts.push(Number(answer.body.held));
      await new Promise((done) => setTimeout(done, 1500));
    }
    // Never more than two held at once (512 MiB): the watchdog ended the engine, which started afresh.
    expect(Math.max(...counts)).toBeLessThanOrEqual(2);
    expect(counts.length).toBeGreaterThanOrEqual(2);
    await stillServing();
  }, 60_000);
});
