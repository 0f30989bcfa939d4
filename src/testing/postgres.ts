/**
 * A real PostgreSQL server for tests of the records' PostgreSQL engine, and a new empty database on it
 * for each caller. The server is `PLATFORM_TEST_DATABASE_URL` when set; otherwise one is started here,
 * once per process, from the machine's PostgreSQL binaries (`initdb`, `postgres`: Debian's `postgresql`
 * package) in a temporary folder, on a free loopback port, and ended with this process, however it ends. It syncs as a production server does (the benches time durable writes). Without either, `testDatabase` says why, and the suites that need it are skipped with that reason.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Where PostgreSQL's binaries are: on the PATH, or Debian's versioned folder. */
function binaries(): string | undefined {
  try {
    const found = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    if (found) return join(found, '..');
  } catch {
    // Not on the PATH.
  }
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let started: Promise<string | { skip: string }> | undefined;
let child: ChildProcess | undefined;

/** PostgreSQL refuses to run as root: as root, the cluster is the `postgres` user's. */
function asUser(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

async function startServer(): Promise<string | { skip: string }> {
  const configured = process.env.PLATFORM_TEST_DATABASE_URL;
  if (configured) return configured;
  const bin = binaries();
  if (!bin) return { skip: 'no PostgreSQL: set PLATFORM_TEST_DATABASE_URL or install Debian\'s postgresql package' };
  const user = asUser();
  if (userInfo().uid === 0 && !user) return { skip: 'running as root and there is no postgres user to run PostgreSQL as' };
  const dir = mkdtempSync(join(tmpdir(), 'platform-postgres-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const options = user ? { uid: user.uid, gid: user.gid } : {};
  execFileSync(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'platform', '--no-sync'], { ...options, stdio: 'ignore' });
  const port = await freePort();
  // The server goes when this process goes, however it goes (a test worker may be killed): a watch beside
  // it ends it, and removes its folder, once this process is no more.
  const watch = `${shellQuote(join(bin, 'postgres'))} -D ${shellQuote(data)} -p ${port} -k ${shellQuote(dir)} -c listen_addresses=127.0.0.1 & server=$!; while [ -d /proc/${process.pid} ] && kill -0 $server 2>/dev/null; do sleep 1; done; kill -9 $server 2>/dev/null; wait $server 2>/dev/null; rm -rf ${shellQuote(dir)}`;
  child = spawn('sh', ['-c', watch], { ...options, stdio: 'ignore', detached: true });
  child.unref();
  const url = `postgres://platform@127.0.0.1:${port}/postgres`;
  for (let tries = 0; ; tries++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return url;
    } catch (error) {
      await client.end().catch(() => {});
      if (tries > 100 || child!.exitCode !== null) throw new Error(`PostgreSQL did not start: ${error instanceof Error ? error.message : String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The URL of a new empty database, or why there is none (then skip). */
export async function testDatabase(): Promise<{ url: string } | { skip: string }> {
  started ??= startServer();
  const server = await started;
  if (typeof server !== 'string') return server;
  const name = `platform_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.toString() };
}
