// The check server's socket, its one message each way, and its client (bin/platform.mjs).
//
// `platform check` in a new process pays for Node's start, the start-up snapshot's heap (about 300 ms)
// and a type checker that V8 has not compiled yet (a template's check took 400 ms more, against about
// 250 ms in a process that had checked before). A check server is a process started from the snapshot
// that stays after its first check (src/cli/check-server.ts): later checks go to it over a Unix socket
// and cost a Node start for the client and a check in a warm process. It answers nothing but `check`,
// for the user who started it (the socket is in a folder only that user can open), and ends after
// PLATFORM_CHECK_SERVER_IDLE_MS (15 minutes) without a request.
//
// No server is used on Windows, under CI (CI set: a one-off run gains nothing from a process left behind),
// with PLATFORM_CHECK_SERVER=0, or where the prebuilt CLI or its snapshot cannot serve. Whatever goes
// wrong on the way (no folder of our own, a server that does not start, a server that ends before it
// answers), the client says "not served" and the check runs in a process of its own, as before.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prebuiltEntry, snapshotArgs, snapshotEnv } from './prebuilt.mjs';

/** Set (to the socket's path) in the environment of a process the snapshot starts as a check server. */
export const SERVE_VARIABLE = 'PLATFORM_CHECK_SERVE';
/** How long a server waits for a request before it ends. */
export const DEFAULT_IDLE_MS = 15 * 60_000;
/** The most a request or an answer may hold; a longer line is refused. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** How long the client waits for a server it started to listen. */
const START_WAIT_MS = 10_000;
/**
 * How long the client waits for a server to take its request (`{ taken: true }`, sent as soon as the
 * request is read). A server busy with another check (a type check holds its thread) or stopped does
 * not take it in time: the check then runs in a process of its own rather than wait behind it.
 */
export const TAKE_WAIT_MS = 3_000;
/** How long a server that dropped a request may still be seen listening before the client takes it for gone. */
const GONE_WAIT_MS = 1_000;

/** Whether `check` may go through a check server in this environment. */
export function serverAllowed(env = process.env) {
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return false;
  if (env.PLATFORM_CHECK_SERVER === '0' || env.PLATFORM_CLI_SNAPSHOT === '0' || env.PLATFORM_CLI_SOURCES === '1') return false;
  return !env.CI || env.CI === 'false' || env.CI === '0';
}

/**
 * This user's folder of check server sockets, made with mode 0700 if missing:
 * `$XDG_RUNTIME_DIR/platform-<uid>`, else under the system's temporary folder. Undefined when it is not
 * a folder (a link is not followed), not this user's, or open to others. Anyone who could write there could
 * put a socket of their own in a server's place and be sent every project's path.
 */
export function socketFolder(env = process.env) {
  const uid = process.getuid();
  const folder = join(env.XDG_RUNTIME_DIR || tmpdir(), `platform-${uid}`);
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if (error?.code !== 'EEXIST') return undefined;
  }
  try {
    const stat = lstatSync(folder);
    return stat.isDirectory() && stat.uid === uid && (stat.mode & 0o077) === 0 ? folder : undefined;
  } catch {
    return undefined;
  }
}

/** The build of the prebuilt CLI under `root` a server belongs to: the checkout and the time of its build. */
export function buildIdentity(root) {
  const { builtAt } = JSON.parse(readFileSync(new URL('build/cli/inputs.json', root), 'utf8'));
  return createHash('sha256').update(`${fileURLToPath(root)}\0${builtAt}`).digest('hex').slice(0, 20);
}

/** The socket and the process-id file of the server of build `identity` in `folder`. */
export function serverPaths(folder, identity) {
  return { socket: join(folder, `check-${identity}.sock`), pid: join(folder, `check-${identity}.pid`) };
}

/**
 * Reads newline-ended JSON messages from `socket`, each given to `onMessage`; a message longer than
 * MAX_MESSAGE_BYTES, or one that is not JSON, ends the socket.
 */
export function readMessages(socket, onMessage) {
  let pending = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => {
    pending += chunk;
    let end;
    while ((end = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        return void socket.destroy();
      }
      onMessage(message);
    }
    if (pending.length > MAX_MESSAGE_BYTES) socket.destroy();
  });
}

/**
 * One request: `{ answer }`, or why there is none: `unreachable` (nothing listens), `untaken` (the
 * server did not take the request within `takeWaitMs`), `dropped` (the connection ended before an
 * answer: the server ended, or refused the line).
 */
function ask(path, request, takeWaitMs) {
  return new Promise((resolve) => {
    const socket = connect(path);
    let answer;
    let connected = false;
    let untaken = false;
    const waiting = setTimeout(() => ((untaken = true), socket.destroy()), takeWaitMs);
    socket.once('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(waiting);
      resolve(answer !== undefined ? { answer } : !connected ? 'unreachable' : untaken ? 'untaken' : 'dropped');
    });
    socket.once('connect', () => ((connected = true), socket.write(`${JSON.stringify(request)}\n`)));
    readMessages(socket, (message) => {
      if (message?.taken === true) return void clearTimeout(waiting);
      answer = message;
      socket.end();
    });
  });
}

/** Whether something listens on the socket `path` (the client before it starts a server; a server before it takes a socket over). */
export function listening(path) {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

const delay = (ms) => new Promise((done) => setTimeout(done, ms));

/**
 * `platform <args>` (a `check`) answered by this build's check server under `root` (a URL ending in /),
 * started first when none listens: its exit status, with its output written to `out`; undefined when
 * no server may or could answer, with nothing written.
 */
export async function checkThroughServer(root, args, out = process, env = process.env) {
  let answer;
  try {
    answer = await serverAnswer(root, args, env);
  } catch {
    // Anything unforeseen on the way to a server: the check runs by itself.
    return undefined;
  }
  if (!answer || typeof answer.exitCode !== 'number' || typeof answer.stdout !== 'string' || typeof answer.stderr !== 'string') return undefined;
  out.stdout.write(answer.stdout);
  out.stderr.write(answer.stderr);
  return answer.exitCode;
}

/** The answer of this build's check server (started first when none listens), or undefined. */
async function serverAnswer(root, args, env) {
  const takeWaitMs = Number(env.PLATFORM_CHECK_SERVER_TAKE_MS) || TAKE_WAIT_MS;
  if (args[0] !== 'check' || !serverAllowed(env) || !prebuiltEntry(root)) return undefined;
  const snapshot = snapshotArgs(root);
  const folder = snapshot && socketFolder(env);
  if (!folder) return undefined;
  // Throws where the working folder is gone: the check then runs by itself (and says so, DG0000).
  const cwd = process.cwd();
  const identity = buildIdentity(root);
  const { socket } = serverPaths(folder, identity);
  const request = { args, cwd, build: identity, debug: Boolean(env.PLATFORM_DEBUG) };
  let asked = await ask(socket, request, takeWaitMs);
  // A server that ended as it was asked may still be seen listening for a moment while it goes.
  for (let waited = 0; asked === 'dropped' && waited < GONE_WAIT_MS && (await listening(socket)); waited += 25) await delay(25);
  if (asked === 'unreachable' || (asked === 'dropped' && !(await listening(socket)))) {
    // None listens (or one just ended): start one, which takes over a socket left by a server that was killed.
    const server = spawn(process.execPath, snapshot, { cwd: '/', detached: true, stdio: 'ignore', env: snapshotEnv({ ...env, [SERVE_VARIABLE]: socket }) });
    let failed = false;
    server.on('error', () => (failed = true));
    server.unref();
    const until = Date.now() + START_WAIT_MS;
    while (!(await listening(socket)) && Date.now() < until && server.exitCode === null && !failed) await delay(25);
    asked = await ask(socket, request, takeWaitMs);
  }
  return typeof asked === 'object' ? asked.answer : undefined;
}
