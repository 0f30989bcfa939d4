/** The control plane's origins as `npm run control-plane` takes them: the playgrounds allowed by CORS (flag or environment), over real HTTP. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
let work: string;
const running: ChildProcess[] = [];

/** Starts `main.ts` on a free port; resolves with its URL once it listens, or its exit code and stderr. */
function start(args: string[], env: Record<string, string> = {}): Promise<{ url?: string; code?: number | null; stderr: string }> {
  const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['src/control-plane/main.ts', '--port', '0', '--data', join(work, `data-${running.length}`), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let stdout = '';
  let stderr = '';
  return new Promise((resolve) => {
    child.stdout!.on('data', (data: Buffer) => {
      stdout += data.toString();
      const url = /control plane on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (url) resolve({ url, stderr });
    });
    child.stderr!.on('data', (data: Buffer) => (stderr += data.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

const allowed = async (url: string, origin: string) => (await fetch(`${url}/v0/health`, { headers: { origin } })).headers.get('access-control-allow-origin');

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'platform-origins-'));
});

afterAll(() => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
});

describe('playground origins allowed by CORS', () => {
  it('takes them from --playground-origin, and allows no other', async () => {
    const { url } = await start(['--playground-origin', 'http://localhost:8123', '--playground-origin', 'http://127.0.0.1:8123']);
    expect(await allowed(url!, 'http://localhost:8123')).toBe('http://localhost:8123');
    expect(await allowed(url!, 'http://127.0.0.1:8123')).toBe('http://127.0.0.1:8123');
    expect(await allowed(url!, 'http://localhost:5173')).toBeNull();
  }, 30_000);

  it('takes them from PLATFORM_PLAYGROUND_ORIGINS, comma-separated', async () => {
    const { url } = await start([], { PLATFORM_PLAYGROUND_ORIGINS: 'http://localhost:9001, https://play.example' });
    expect(await allowed(url!, 'https://play.example')).toBe('https://play.example');
    expect(await allowed(url!, 'http://localhost:9001')).toBe('http://localhost:9001');
    expect(await allowed(url!, 'http://localhost:5173')).toBeNull();
  }, 30_000);

  it('refuses an origin that is not exact, before listening', async () => {
    const answer = await start(['--playground-origin', 'http://localhost:8123/app']);
    expect(answer.code).toBe(2);
    expect(answer.stderr).toContain('not an exact origin');
  }, 30_000);
});
