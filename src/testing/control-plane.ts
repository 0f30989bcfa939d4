/** What the control plane's tests share: passkey accounts (a software authenticator) and sign-in through the device flow, the CLI against a control plane on loopback, and HTTP to a hosted origin on loopback. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { Compiler } from '../core/build';
import { createControlPlane, type ControlPlane } from '../control-plane/control-plane';
import { FileCredentialStore } from '../adapters/node/credentials';
import { runInProcess } from './cli';
import { SoftAuthenticator, type SoftCredential, type Tampering } from './authenticator';

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

/** Where a person's browser reaches the control plane: in process (a ControlPlane) or over HTTP (its URL). */
export type PlaneTarget = ControlPlane | string;

export interface Reach {
  /** The origin the browser's page is at: the control plane's public origin. */
  origin: string;
  send(path: string, init?: { method?: string; json?: unknown; form?: Record<string, string>; cookie?: string; headers?: Record<string, string> }): Promise<Response>;
}

/** Requests as a browser's page at the control plane's public origin sends them (Origin on a POST, the session cookie). */
export function reach(target: PlaneTarget): Reach {
  const origin = typeof target === 'string' ? target : target.context.publicOrigin;
  return {
    origin,
    send(path, init = {}) {
      // What a browser sends with a page's POST: its Origin, and the session cookie.
      const headers: Record<string, string> = { ...(init.method === 'GET' ? {} : { origin }), ...(init.cookie ? { cookie: init.cookie } : {}) };
      let body: string | undefined;
      if (init.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(init.json);
      } else if (init.form) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        body = new URLSearchParams(init.form).toString();
      }
      const request = new Request(`${origin}${path}`, { method: init.method ?? 'POST', headers: { ...headers, ...init.headers }, ...(body !== undefined ? { body } : {}), redirect: 'manual' });
      return typeof target === 'string' ? fetch(request) : Promise.resolve(target.app.request(request));
    },
  };
}

/** The software authenticator of each rpId, as one browser profile holds passkeys per relying party. */
const authenticators = new Map<string, SoftAuthenticator>();
export function authenticatorFor(rpId: string): SoftAuthenticator {
  let authenticator = authenticators.get(rpId);
  if (!authenticator) authenticators.set(rpId, (authenticator = new SoftAuthenticator()));
  return authenticator;
}

/** The credential and browser session each name last used on each control plane (object in process, URL over HTTP). */
const knownPlanes = new WeakMap<ControlPlane, Map<string, { credential: SoftCredential; cookie?: string }>>();
const knownUrls = new Map<string, Map<string, { credential: SoftCredential; cookie?: string }>>();
function known(target: PlaneTarget): Map<string, { credential: SoftCredential; cookie?: string }> {
  const store = typeof target === 'string' ? knownUrls : knownPlanes;
  let map = (store as Map<PlaneTarget, Map<string, { credential: SoftCredential; cookie?: string }>>).get(target);
  if (!map) (store as Map<PlaneTarget, Map<string, { credential: SoftCredential; cookie?: string }>>).set(target, (map = new Map()));
  return map;
}

export interface AccountState {
  id: string;
  name: string;
  builder: boolean;
}

/** A browser signed in to an account: its session cookie (`platform_account=…`) and the account. */
export interface PasskeySession {
  cookie: string;
  account: AccountState;
  credential: SoftCredential;
}

const cookieOfResponse = (response: Response) => response.headers.get('set-cookie')?.split(';')[0];

/** Creates an account named `name` with a new passkey of the rpId's authenticator; the browser is signed in. */
export async function registerAccount(target: PlaneTarget, name: string): Promise<PasskeySession> {
  const { origin, send } = reach(target);
  const started = await send('/account/register/options', { json: { name } });
  if (started.status !== 200) throw new Error(`registration of ${name} refused: ${started.status} ${await started.text()}`);
  const { options } = (await started.json()) as { options: PublicKeyCredentialCreationOptionsJSON };
  const { response, credential } = authenticatorFor(new URL(origin).hostname).create(options, origin);
  const verified = await send('/account/register/verify', { json: { response } });
  if (verified.status !== 200) throw new Error(`registration of ${name} failed: ${verified.status} ${await verified.text()}`);
  const cookie = cookieOfResponse(verified)!;
  known(target).set(name, { credential, cookie });
  return { cookie, account: ((await verified.json()) as { account: AccountState }).account, credential };
}

/** Signs in with a passkey assertion of `credential` (a fresh ceremony); the answer, and the session when it worked. */
export async function assertPasskey(target: PlaneTarget, credential: SoftCredential, tampering: Tampering = {}): Promise<{ response: Response; session?: PasskeySession }> {
  const { origin, send } = reach(target);
  const started = await send('/account/signin/options', { json: {} });
  if (started.status !== 200) throw new Error(`sign-in refused: ${started.status} ${await started.text()}`);
  const { options } = (await started.json()) as { options: PublicKeyCredentialRequestOptionsJSON };
  const response = await send('/account/signin/verify', { json: { response: authenticatorFor(new URL(origin).hostname).get(options, origin, credential, tampering) } });
  if (response.status !== 200) return { response };
  const cookie = cookieOfResponse(response)!;
  const { account } = (await response.clone().json()) as { account: AccountState };
  known(target).set(account.name, { credential, cookie });
  return { response, session: { cookie, account, credential } };
}

/**
 * A browser signed in as `name`, as a person would be: still signed in from before, else signed in
 * with one of the authenticator's passkeys for that name (the one last used here first), else with a
 * new account and passkey.
 */
export async function passkeySession(target: PlaneTarget, name: string): Promise<PasskeySession> {
  const { origin, send } = reach(target);
  const last = known(target).get(name);
  if (last?.cookie) {
    const current = await send('/account/session', { method: 'GET', cookie: last.cookie });
    if (current.status === 200) return { cookie: last.cookie, account: ((await current.json()) as { account: AccountState }).account, credential: last.credential };
  }
  const rpId = new URL(origin).hostname;
  const candidates = authenticatorFor(rpId).credentials.filter((c) => c.userName === name && c !== last?.credential).reverse();
  for (const credential of last ? [last.credential, ...candidates] : candidates) {
    const { response, session } = await assertPasskey(target, credential);
    if (session) return session;
    const code = ((await response.json()) as { error?: { code?: string } }).error?.code;
    if (code !== 'passkey_unknown') throw new Error(`sign-in as ${name} failed: ${response.status} ${code}`);
  }
  return registerAccount(target, name);
}

/** Makes the signed-in account a builder on its account page, with the operator secret. */
export async function becomeBuilder(target: PlaneTarget, session: PasskeySession, secret: string): Promise<Response> {
  return reach(target).send('/account/builder', { form: { secret }, cookie: session.cookie });
}

/**
 * Approves (or denies) a waiting user code on the approval page, as the person at the browser would:
 * signed in with a passkey as `builder` (an account made at first), with the operator secret when the
 * account is not a builder yet or a secret is given (wrong ones count against the code).
 */
export async function approve(plane: PlaneTarget, userCode: string, builder: string, options: { secret?: string; decision?: 'approve' | 'deny'; headers?: Record<string, string> } = {}): Promise<Response> {
  const session = await passkeySession(plane, builder);
  const secret = options.secret ?? (session.account.builder || typeof plane === 'string' ? undefined : plane.secrets.operatorSecret);
  const form: Record<string, string> = { code: userCode, decision: options.decision ?? 'approve', ...(secret !== undefined ? { secret } : {}) };
  return reach(plane).send('/device', { form, cookie: session.cookie, ...(options.headers ? { headers: options.headers } : {}) });
}

/** Signs a builder in through the whole device flow and returns the session token: a passkey account, made a builder with the operator secret, approves the code. */
export async function signIn(plane: ControlPlane, builder: string): Promise<string> {
  const session = await passkeySession(plane, builder);
  if (!session.account.builder) {
    const granted = await becomeBuilder(plane, session, plane.secrets.operatorSecret);
    if (granted.status !== 200) throw new Error(`builder grant failed: ${granted.status}`);
  }
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

/** An HTTP request to a hosted origin (`http://app-…--preview.localhost:<port>`) sent to 127.0.0.1 with that Host (from `localAddress` when given). */
export function hostedRequest(origin: string, path: string, options: { method?: string; body?: string; headers?: Record<string, string>; localAddress?: string } = {}): Promise<HostedAnswer> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: Number(url.port), path, ...(options.localAddress ? { localAddress: options.localAddress, agent: false } : {}), method: options.method ?? 'GET', headers: { host: url.host, ...(options.body !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(options.body)) } : {}), ...options.headers } },
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
  const { code, stdout, stderr } = await runInProcess([...args, '--json'], {
    cwd: options.cwd,
    compiler: options.compiler,
    env: { PLATFORM_CONFIG_DIR: join(options.work, 'config'), PLATFORM_CONTROL_URL: options.controlUrl },
    ...(options.onStderr ? { onStderr: options.onStderr } : {}),
  });
  return { code, envelope: JSON.parse(stdout || '{}'), stderr };
}

/**
 * A control plane in process under a new temporary directory, with builders signed in through the
 * device flow and their sessions stored as `platform auth login` stores them, each under
 * `<work>/<config dir>` (builder name → config dir). `close` stops it and removes the directory.
 */
export async function planeWithBuilders(prefix: string, builders: Record<string, string> = { alice: 'config' }): Promise<{ work: string; plane: ControlPlane; close(): Promise<void> }> {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const plane = await createControlPlane({ dataDir: join(work, 'plane'), devicePollMs: 5 });
  for (const [name, config] of Object.entries(builders)) {
    const token = await signIn(plane, name);
    await new FileCredentialStore(join(work, config)).write(BASE, { token, builder: { id: 'bld_x', name }, createdAt: new Date().toISOString() });
  }
  return {
    work,
    plane,
    async close() {
      await plane.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `platform <args>` in process against a control plane in process (its Hono app answers the
 * CLI's requests), with credentials under `configDir`; the envelope is parsed when `--json` is given.
 */
export async function platformInProcess(plane: ControlPlane, args: string[], options: { cwd: string; configDir: string; compiler: () => Promise<Compiler> }): Promise<{ code: number; envelope: any; stdout: string }> {
  const { code, stdout } = await runInProcess(args, {
    cwd: options.cwd,
    compiler: options.compiler,
    env: { PLATFORM_CONFIG_DIR: options.configDir, PLATFORM_CONTROL_URL: BASE },
    fetch: (request: Request) => Promise.resolve(plane.app.request(request)),
  });
  return { code, envelope: args.includes('--json') ? JSON.parse(stdout) : undefined, stdout };
}

/** A query or mutation of a deployed app's environment from a guest visitor, in process; the answer with its parsed body. */
export async function guestCall(plane: ControlPlane, appId: string, kind: 'query' | 'mutation', name: string, input: unknown, environment: 'preview' | 'production' = 'preview'): Promise<{ status: number; body: any; headers: Headers }> {
  const host = `${appId.replace('_', '-')}${environment === 'preview' ? '--preview' : ''}.localhost:4310`;
  const response = await plane.app.request(new Request(`http://${host}/_platform/v0/${kind}/${name}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) }));
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** A person's approval of a device code on the control plane's approval page, over HTTP: signed in with a passkey, and made a builder with `secret` when not one yet. */
export function approveOverHttp(url: string, code: string, builder: string, secret: string): Promise<Response> {
  return approve(url, code, builder, { secret });
}

/** A control plane started as its own process (`main.ts`, as `npm start` runs it). */
export interface PlaneProcess {
  child: ChildProcess;
  url: string;
  port: number;
  operatorSecret: string;
  exited: Promise<void>;
}

/** Starts the control plane as its own process on `dataDir` (port 0, with `args` added) and resolves when it listens. */
export function startPlaneProcess(dataDir: string, args: readonly string[] = []): Promise<PlaneProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../control-plane/main.ts'), '--port', '0', '--data', dataDir, ...args], { cwd: join(import.meta.dirname, '../..'), stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /control plane on (http:\/\/\S+)/.exec(out)?.[1];
      const operatorSecret = /operator secret: (\S+)/.exec(out)?.[1];
      if (url && operatorSecret) resolve({ child, url, port: Number(new URL(url).port), operatorSecret, exited });
    });
    child.once('exit', (code, signal) => reject(new Error(`the control plane exited (${code ?? signal}) before it listened: ${out}${err}`)));
  });
}

/** Signs a builder in over HTTP through the device flow, as `platform auth login` and a person at the approval page do; its token. */
export async function signInOverHttp(plane: { url: string; operatorSecret: string }, builder: string): Promise<string> {
  const post = (path: string, body: unknown) => fetch(`${plane.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const started = (await (await post('/v0/auth/device', {})).json()) as { deviceCode: string; userCode: string };
  const approved = await approveOverHttp(plane.url, started.userCode, builder, plane.operatorSecret);
  if (approved.status !== 200) throw new Error(`approval failed: HTTP ${approved.status}`);
  const polled = (await (await post('/v0/auth/device/token', { deviceCode: started.deviceCode })).json()) as { token: string };
  return polled.token;
}

/** The loopback ports a process listens on (Linux /proc; empty when it is gone). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (socket) inodes.add(socket[1]!);
    }
  } catch {
    return []; // the engine is gone
  }
  // /proc/net/tcp: "sl local_address rem_address st … inode", addresses as hex "0100007F:1F90", st 0A = LISTEN.
  const ports: number[] = [];
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[3] === '0A' && fields[1]?.startsWith('0100007F:') && inodes.has(fields[9] ?? '')) ports.push(parseInt(fields[1].slice(9), 16));
  }
  return ports;
}

/**
 * The workerd processes serving a data directory's hosted apps, found as a local process would find
 * them: running (not zombies), with their config under `engines/` (a process each) or `pool/` (the
 * pool's shared processes). Linux /proc; empty elsewhere.
 */
export function engineProcesses(dataDir: string): number[] {
  return [...processesNaming(join(dataDir, 'engines')), ...processesNaming(join(dataDir, 'pool'))].filter((found) => found.state !== 'Z' && found.state !== 'X').map((found) => found.pid);
}

/** Every loopback port a workerd process of the data directory listens on (`engineProcesses`, then each one's listening sockets). */
export function enginePorts(dataDir: string): number[] {
  return engineProcesses(dataDir).flatMap(listeningPorts);
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

/**
 * Opens a GET of `path` on a hosted origin over a raw socket and leaves the answer unread (a paused
 * socket holds little); from `localAddress` when given (any 127.x.y.z: another source).
 */
export function slowReader(origin: string, path: string, options: { localAddress?: string } = {}): SlowReader {
  const url = new URL(origin);
  const socket: Socket = connect({ port: Number(url.port), host: '127.0.0.1', ...(options.localAddress ? { localAddress: options.localAddress } : {}) });
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

/** Processes whose command line names `text` (Linux /proc), with their state. */
export function processesNaming(text: string): Array<{ pid: number; state: string }> {
  if (!existsSync('/proc')) return [];
  const found: Array<{ pid: number; state: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(text)) found.push({ pid: Number(entry), state: stateOf(Number(entry)) ?? '?' });
    } catch {
      // Ended meanwhile.
    }
  }
  return found;
}

/** Whether a process runs: it exists and is not a zombie (ended, not yet reaped). */
export function alive(pid: number): boolean {
  const state = stateOf(pid);
  return state !== undefined && state !== 'Z' && state !== 'X';
}

/** A process's state letter (R, S, Z…), undefined once it is gone. */
export function stateOf(pid: number): string | undefined {
  try {
    return /^\d+ \(.*\) (\S)/s.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}
