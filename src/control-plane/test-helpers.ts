/** What the control plane's tests share: an in-process sign-in through the device flow, the CLI against a control plane on loopback, and HTTP to a hosted origin on loopback. */
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Compiler } from '../core/build/build';
import { main } from '../cli/main';
import type { ControlPlane } from './control-plane';

export const BASE = 'http://localhost:4310';

/** A request to the control plane in process. */
export function call(plane: ControlPlane, method: string, path: string, options: { token?: string; body?: unknown; headers?: Record<string, string>; base?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  return Promise.resolve(plane.app.request(new Request(`${options.base ?? BASE}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) })));
}

/** Approves a waiting user code on the approval page, as the person at the browser would. */
export function approve(plane: ControlPlane, userCode: string, builder: string, options: { secret?: string; decision?: 'approve' | 'deny'; headers?: Record<string, string> } = {}): Promise<Response> {
  const form = new URLSearchParams({ code: userCode, builder, secret: options.secret ?? plane.secrets.operatorSecret, decision: options.decision ?? 'approve' });
  return Promise.resolve(plane.app.request(new Request(`${BASE}/device`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers }, body: form.toString() })));
}

/** Signs a builder in through the whole device flow and returns the session token. */
export async function signIn(plane: ControlPlane, builder: string): Promise<string> {
  const started = (await (await call(plane, 'POST', '/v0/auth/device', { body: {} })).json()) as { deviceCode: string; userCode: string };
  const approved = await approve(plane, started.userCode, builder);
  if (approved.status !== 200) throw new Error(`approval failed: ${approved.status}`);
  const polled = (await (await call(plane, 'POST', '/v0/auth/device/token', { body: { deviceCode: started.deviceCode } })).json()) as { token: string };
  return polled.token;
}

export interface HostedAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** An HTTP request to a hosted origin (`http://app-…--preview.localhost:<port>`) sent to 127.0.0.1 with that Host. */
export function hostedRequest(origin: string, path: string, options: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<HostedAnswer> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: Number(url.port), path, method: options.method ?? 'GET', headers: { host: url.host, ...(options.body !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(options.body)) } : {}), ...options.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** The `name=value` part of a Set-Cookie header, to send back. */
export function cookieOf(answer: HostedAnswer): string | undefined {
  const set = answer.headers['set-cookie'];
  const first = Array.isArray(set) ? set[0] : set;
  return first?.split(';')[0];
}

/**
 * Sends `total` bytes chunked (no Content-Length) over a raw socket, as fast as the server reads them,
 * and returns the status the server answered (0 for none), the bytes written before it closed the
 * connection, and the highest RSS of this process (which runs the control plane) meanwhile, sampled every 20 ms.
 */
export function sendHuge(port: number, path: string, total: number, headers: Record<string, string> = {}): Promise<{ status: number; written: number; peakRss: number }> {
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  const framed = Buffer.concat([Buffer.from(`${chunk.byteLength.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
  return new Promise((resolve) => {
    let received = '';
    let written = 0;
    let peakRss = process.memoryUsage().rss;
    let done = false;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
    const socket = connect(port, '127.0.0.1');
    const finish = () => {
      if (done) return;
      done = true;
      clearInterval(sampler);
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0), written, peakRss });
    };
    socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
    socket.on('error', () => setTimeout(finish, 50));
    socket.on('close', () => setTimeout(finish, 50));
    const head = Object.entries({ host: `127.0.0.1:${port}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
    const pump = () => {
      while (!done && !socket.destroyed && written < total) {
        written += chunk.byteLength;
        if (!socket.write(framed)) return void socket.once('drain', pump);
      }
      if (written >= total && !socket.destroyed) socket.end('0\r\n\r\n');
    };
    pump();
  });
}

/** Where an in-process `platform` run points: its project, its config dir (credentials) and the control plane's URL. */
export interface LoopbackCli {
  cwd: string;
  work: string;
  controlUrl: string;
  compiler: () => Promise<Compiler>;
  onStderr?: (text: string) => void;
}

/** Runs `platform <args> --json` in process, with credentials under `<work>/config`, against a control plane over loopback. */
export async function platformOverLoopback(args: string[], options: LoopbackCli): Promise<{ code: number; envelope: any; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main([...args, '--json'], {
    cwd: options.cwd,
    compiler: options.compiler,
    env: { PLATFORM_CONFIG_DIR: join(options.work, 'config'), PLATFORM_CONTROL_URL: options.controlUrl },
    stdout: { write: (t: string) => (stdout += t) },
    stderr: {
      write: (t: string) => {
        stderr += t;
        options.onStderr?.(t);
      },
    },
  });
  return { code, envelope: JSON.parse(stdout || '{}'), stderr };
}

/** A person's approval of a device code on the control plane's approval page, over HTTP. */
export function approveOverHttp(url: string, code: string, builder: string, secret: string): Promise<Response> {
  return fetch(`${url}/device`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ code, builder, secret, decision: 'approve' }).toString(),
  });
}

/**
 * The loopback port an app environment's engine listens on, found as a local process would find it:
 * the engine's pid file under the data directory, then that process's listening socket in /proc
 * (Linux only; undefined elsewhere, or while no engine runs).
 */
export function enginePort(dataDir: string, origin: string): number | undefined {
  const match = /^app-([a-z2-7]+)(--preview)?\./.exec(new URL(origin).hostname);
  if (!match) throw new Error(`not a hosted origin: ${origin}`);
  const pidFile = join(dataDir, 'engines', `app_${match[1]}.${match[2] ? 'preview' : 'production'}`, 'workerd.pid');
  if (process.platform !== 'linux' || !existsSync(pidFile)) return undefined;
  const pid = readFileSync(pidFile, 'utf8').trim();
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (socket) inodes.add(socket[1]!);
    }
  } catch {
    return undefined; // the engine is gone
  }
  // /proc/net/tcp: "sl local_address rem_address st … inode", addresses as hex "0100007F:1F90", st 0A = LISTEN.
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[3] === '0A' && fields[1]?.startsWith('0100007F:') && inodes.has(fields[9] ?? '')) return parseInt(fields[1].slice(9), 16);
  }
  return undefined;
}

/** A GET to a hosted origin over a raw socket whose answer is read only when `take` is called. */
export interface SlowReader {
  /** The answer's status, once its first line arrived (0 before). */
  status(): number;
  /** Reads what has arrived, until about `bytes` (whole buffered chunks); returns how many it read. */
  take(bytes: number): number;
  /** Bytes read so far, head included. */
  read(): number;
  /** Whether the server closed the connection. */
  closed(): boolean;
  close(): void;
}

/** Opens a GET of `path` on a hosted origin over a raw socket and leaves the answer unread (a paused socket holds little). */
export function slowReader(origin: string, path: string): SlowReader {
  const url = new URL(origin);
  const socket: Socket = connect(Number(url.port), '127.0.0.1');
  let head = '';
  let read = 0;
  let closed = false;
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  socket.write(`GET ${path} HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`);
  socket.pause();
  return {
    status: () => Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
    take(bytes) {
      let taken = 0;
      let chunk: Buffer | null;
      // Each read hands over at most what the socket buffered (its highWaterMark), then it fetches more.
      while (taken < bytes && (chunk = socket.read() as Buffer | null) !== null) {
        if (head.length < 64) head += chunk.subarray(0, 64).toString('latin1');
        taken += chunk.byteLength;
      }
      read += taken;
      return taken;
    },
    read: () => read,
    closed: () => closed,
    close: () => void socket.destroy(),
  };
}

/** Polls `check` every 100 ms until it holds, for at most `limitMs` (a generous limit: a loaded machine is slow). */
export async function eventually(check: () => boolean | Promise<boolean>, limitMs = 30_000): Promise<boolean> {
  const until = Date.now() + limitMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((done) => setTimeout(done, 100));
  }
}
