/**
 * The check server (bin/check-server.mjs says why, and is its client): a process started from the CLI's
 * start-up snapshot that answers `platform check` requests on a Unix socket, one at a time, with one
 * compiler kept across them, so a check runs in a process whose type checker V8 has compiled already, and
 * files the server checked before (the same text and the same imports) are not checked again.
 *
 * A request is taken (`{ taken: true }`) as its turn comes; a client not answered so within its wait
 * checks by itself. It answers only `check`, only requests of its own build, and only while that build
 * is current; it ends after the idle time without a request, when its heap grew past MAX_RSS_BYTES, or
 * when its socket is no longer its own (the socket's folder removed, another server in its place).
 */
import { existsSync, lstatSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import { buildIdentity, DEFAULT_IDLE_MS, listening, readMessages, type CheckAnswer, type CheckRequest } from '../../bin/check-server.mjs';
import { prebuiltEntry } from '../../bin/prebuilt.mjs';
import type { Compiler } from '../core/build';
import { buildCheckCacheKey } from './check-cache';
import { main } from './main';

/** Past this resident size after a check the server ends (a new one starts on the next check). */
const MAX_RSS_BYTES = 1.5 * 1024 ** 3;
/** How often the server makes sure its socket is still its own. */
const OWNERSHIP_CHECK_MS = 5_000;

function isRequest(value: unknown): value is CheckRequest {
  const request = value as CheckRequest;
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray(request.args) &&
    request.args.every((arg) => typeof arg === 'string') &&
    typeof request.cwd === 'string' &&
    request.cwd.startsWith('/') &&
    typeof request.build === 'string' &&
    typeof request.debug === 'boolean'
  );
}

/** Listens on `path`, taking it over from a server that is gone; false when a live server has it. */
async function listenOn(server: Server, path: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      server.once('error', resolve);
      server.listen(path, () => (server.off('error', resolve), resolve(undefined)));
    });
    if (!error) return true;
    if (error.code !== 'EADDRINUSE' || (await listening(path))) return false;
    // A socket a killed server left: nobody answers on it.
    rmSync(path, { force: true });
  }
  return false;
}

/**
 * Serves checks on `socketPath` for the prebuilt CLI of the checkout `root` until idle for `idleMs`.
 * `compiler` makes the one compiler kept across checks.
 */
export async function serveChecks(socketPath: string, root: string, compiler: () => Promise<Compiler>, idleMs = Number(process.env.PLATFORM_CHECK_SERVER_IDLE_MS) || DEFAULT_IDLE_MS): Promise<void> {
  const rootUrl = pathToFileURL(`${root}/`);
  const identity = buildIdentity(rootUrl);
  const pidPath = socketPath.replace(/\.sock$/, '.pid');
  // The server holds no folder of anyone's: each check names its own.
  process.chdir('/');
  let compilerMade: Promise<Compiler> | undefined;
  const shared = () => (compilerMade ??= compiler());
  let queue = Promise.resolve();
  let idle: NodeJS.Timeout | undefined;
  let inFlight = 0;
  let ending = false;
  let ownSocket: { dev: number; ino: number } | undefined;

  const server = createServer({ allowHalfOpen: true });
  const end = () => {
    if (ending) return;
    ending = true;
    clearTimeout(idle);
    server.close();
    // Only what is still ours: another server may have taken the socket's path since.
    if (stillOurs()) rmSync(socketPath, { force: true });
    try {
      if (lstatSync(pidPath).isFile() && Number(readPid()) === process.pid) rmSync(pidPath, { force: true });
    } catch {
      // Gone already.
    }
    // Once the check in hand (if any) is answered: threads the compiler started end with the process.
    void queue.finally(() => process.exit(0));
  };
  const readPid = () => {
    try {
      return readFileSync(pidPath, 'utf8');
    } catch {
      return '';
    }
  };
  const stillOurs = () => {
    try {
      const stat = statSync(socketPath);
      return ownSocket !== undefined && stat.dev === ownSocket.dev && stat.ino === ownSocket.ino;
    } catch {
      return false;
    }
  };
  const waitIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => (inFlight === 0 ? end() : waitIdle()), idleMs);
  };

  const run = async (request: CheckRequest): Promise<CheckAnswer> => {
    if (request.build !== identity) return { refused: 'the server is of another build of the CLI' };
    if (request.args[0] !== 'check') return { refused: 'the server answers only `check`' };
    if (!prebuiltEntry(rootUrl)) return { refused: "a source of the CLI changed since its build: the sources answer" };
    if (!existsSync(request.cwd)) return { refused: 'the working folder is gone' };
    let stdout = '';
    let stderr = '';
    const exitCode = await main(request.args, {
      cwd: request.cwd,
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: request.debug ? { PLATFORM_DEBUG: '1' } : {},
      compiler: shared,
      checkCache: buildCheckCacheKey() ?? false,
    });
    return { stdout, stderr, exitCode };
  };

  server.on('connection', (socket: Socket) => {
    let taken = false;
    socket.on('error', () => {});
    readMessages(socket, (message) => {
      if (taken) return void socket.destroy();
      taken = true;
      inFlight++;
      waitIdle();
      const answer = queue.then(async () => {
        // Taken as it starts, not as it queues: a client that gave up waiting (TAKE_WAIT_MS) checks by itself.
        if (socket.destroyed) return;
        socket.write(`${JSON.stringify({ taken: true })}\n`);
        const reply: CheckAnswer = isRequest(message) ? await run(message) : { refused: 'not a check request' };
        if (!socket.destroyed) socket.end(`${JSON.stringify(reply)}\n`);
        if ('refused' in reply && reply.refused.startsWith('a source')) end();
      });
      // A request that failed leaves the queue serving the next ones (its client checks by itself).
      queue = answer.catch(() => undefined);
      void answer
        .catch(() => socket.destroy())
        .finally(() => {
          inFlight--;
          if (process.memoryUsage().rss > MAX_RSS_BYTES || !stillOurs()) end();
        });
    });
  });

  if (!(await listenOn(server, socketPath))) return;
  const stat = statSync(socketPath);
  ownSocket = { dev: stat.dev, ino: stat.ino };
  writeFileSync(pidPath, `${process.pid}\n`, { mode: 0o600 });
  process.once('SIGTERM', end);
  process.once('SIGINT', end);
  waitIdle();
  // A server whose socket was removed or taken (two servers started at once) answers no one: it ends.
  setInterval(() => stillOurs() || end(), OWNERSHIP_CHECK_MS).unref();
}
