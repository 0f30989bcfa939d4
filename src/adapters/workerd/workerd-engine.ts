/**
 * One workerd process: the binary from the `@cloudflare/workerd-*` package npm installed (no install
 * script, nothing downloaded at run time), a generated config, secrets in its environment only, the
 * port it reports on its control descriptor, and its end. A pid file lets a later control plane end an
 * engine left behind by one that was killed.
 */
import { freeTimeLimit } from '../../core/host/index.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ConfinedWriter } from '../node/confined-writer.ts';
import { workerdConfig, type WorkerdConfig } from './workerd-config.ts';

const require = createRequire(import.meta.url);
const PACKAGES: Record<string, string> = {
  'linux-x64': '@cloudflare/workerd-linux-64',
  'linux-arm64': '@cloudflare/workerd-linux-arm64',
  'darwin-x64': '@cloudflare/workerd-darwin-64',
  'darwin-arm64': '@cloudflare/workerd-darwin-arm64',
  'win32-x64': '@cloudflare/workerd-windows-64',
};

/** The workerd executable of this platform's optional dependency. */
export function workerdBinary(): string {
  const name = PACKAGES[`${process.platform}-${process.arch}`];
  if (!name) throw new Error(`workerd has no build for ${process.platform}-${process.arch}.`);
  return require.resolve(`${name}/bin/workerd${process.platform === 'win32' ? '.exe' : ''}`);
}

const bundles = new Map<string, Promise<string>>();

/**
 * Bundles a worker entry (TypeScript under worker/) into one ES module file under `dir`, once per
 * process, minified (names kept, for the errors it describes): every isolate holds and compiles its
 * own copy, so its size is paid once per environment in a pool (3.7 MB an environment at 300, against
 * 4.4 MB unminified; docs/control-plane.md). The file is written by the ConfinedWriter under `root` (default: `dir`'s parent), so no link
 * from `root` down is followed (`platform dev` passes the project).
 */
export function bundleWorkerEntry(entry: string, dir: string, root = dirname(dir)): Promise<string> {
  const source = fileURLToPath(new URL(`../../../worker/${entry}.ts`, import.meta.url));
  const out = join(dir, `${entry}.js`);
  let made = bundles.get(out);
  if (!made) {
    made = build({ entryPoints: [source], outfile: out, write: false, bundle: true, format: 'esm', platform: 'neutral', target: 'es2022', mainFields: ['module', 'main'], logLevel: 'silent', minify: true, keepNames: true }).then((result) =>
      new ConfinedWriter(root).makeRoot().writeFile(relative(root, out).split(/[\\/]/).join('/'), result.outputFiles[0]!.contents),
    );
    bundles.set(out, made);
    made.catch(() => bundles.delete(out));
  }
  return made;
}

export interface EngineOptions extends Omit<WorkerdConfig, 'environmentBindings'> {
  /** Where the config and pid file go (one directory per engine). */
  dir: string;
  /** Binding name → value, passed through the process environment. */
  secrets: Record<string, string>;
  startTimeoutMs: number;
}

const live = new Set<ChildProcess>();
const endAll = () => {
  for (const child of live) child.kill('SIGKILL');
};
process.once('exit', endAll);

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * For a command (`platform test`) while it runs engines: Ctrl-C or a SIGTERM ends them too (a signal
 * ends Node without its 'exit' event), runs `cleanUp`, then takes its usual course. Returns the undo.
 */
export function endEnginesOnSignal(cleanUp: () => void): () => void {
  const handler = (signal: NodeJS.Signals) => {
    endAll();
    cleanUp();
    undo();
    process.kill(process.pid, signal);
  };
  const undo = () => {
    for (const signal of SIGNALS) process.off(signal, handler);
  };
  for (const signal of SIGNALS) process.on(signal, handler);
  return undo;
}

/** Whether a process is still running: not gone, not a zombie waiting to be reaped (Linux /proc; elsewhere, as far as signal 0 tells). */
export function stillRunning(pid: number): boolean {
  try {
    const state = /^\d+ \(.*\) (\S)/s.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
    return state !== undefined && state !== 'Z' && state !== 'X';
  } catch {
    if (existsSync('/proc/self/stat')) return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends an engine a previous control plane left running for this directory (a control plane killed
 * with SIGKILL leaves its engines running: they are processes of their own); what to wait for until it
 * has ended (nothing when there was none), so that no two engines ever have the same Durable Object's
 * SQLite files open.
 */
function endLeftover(dir: string): Promise<void> | undefined {
  const pid = killLeftover(dir);
  return pid === undefined ? undefined : gone(pid);
}

/** Waits (up to 10 s) for a process sent SIGKILL to be gone: it takes effect once the process leaves the kernel. */
async function gone(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (stillRunning(pid) && Date.now() < deadline) await new Promise((done) => setTimeout(done, 10));
}

/**
 * Sends SIGKILL to the engine a pid file in `dir` names, when that process is still this directory's
 * engine, and forgets the pid file; the pid when there was one to end. Synchronous, so that an engine
 * whose directory holds nothing running is spawned at once (`endLeftover` returns nothing to wait for).
 */
function killLeftover(dir: string): number | undefined {
  const pidFile = join(dir, 'workerd.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  let ours = false;
  try {
    ours = Number.isInteger(pid) && pid > 0 && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(join(dir, 'config.capnp'));
  } catch {
    // Gone already (or not a Linux /proc): nothing to end.
  }
  rmSync(pidFile, { force: true });
  if (!ours) return undefined;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Ended meanwhile.
  }
  return pid;
}

/**
 * Ends every engine a previous control plane left running under `root` (one directory per engine),
 * so that none outlives a control plane that was killed: a control plane calls it as it starts.
 */
export async function endLeftoverEngines(root: string): Promise<void> {
  if (!existsSync(root)) return;
  await Promise.all(readdirSync(root, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => endLeftover(join(root, entry.name))));
}

/** An engine that did not come up: it stopped (its own words say why), or it was still starting at the timeout. */
export class EngineStartError extends Error {
  constructor(message: string, readonly timedOut: boolean) {
    super(message);
  }
}

/**
 * Where an app engine's requests go (app-engine.ts): a workerd process of its own (`WorkerdEngine`),
 * or an environment's lease of a pooled process (pool.ts, `PoolLease`).
 */
export interface EngineProcess {
  readonly port: number;
  readonly exited: Promise<void>;
  /** Headers every request to it carries (a lease names its environment and itself). */
  readonly headers?: Record<string, string>;
  /** Why it ended by itself, when its host can say. */
  lostReason(): string | undefined;
  /** Its resident memory, in bytes, where it is its own to judge. */
  residentBytes(): number | undefined;
  /** A request to it was sent; the function returned says it ended (`broken`: its connection failed). */
  began?(): (broken?: boolean) => void;
  /** A request to it ran past its deadline and grace: its host ends what is stuck (without it, `kill`). */
  stalled?(): void;
  /** The process's id, for reading it from /proc (a lease's is its shared process's). */
  readonly pid?: number | undefined;
  /** Ends it (a lease is given back: its process goes on serving others). */
  kill(): Promise<void>;
}

/** How long a reading of an engine's resident memory stands (ms). */
const RESIDENT_READ_MS = 5;

export class WorkerdEngine implements EngineProcess {
  readonly port: number;
  readonly #child: ChildProcess;
  readonly #heapMb: number;
  readonly #stderr: () => string;
  readonly exited: Promise<void>;
  /** The last reading of residentBytes, and when it was made. */
  #resident: { at: number; bytes: number | undefined } | undefined;

  private constructor(child: ChildProcess, port: number, exited: Promise<void>, heapMb: number, stderr: () => string) {
    this.#child = child;
    this.port = port;
    this.exited = exited;
    this.#heapMb = heapMb;
    this.#stderr = stderr;
  }

  /** The process's id (for reading its resources from /proc). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /**
   * Why the engine ended by itself, in its host's words, when its last output says so: V8 ends the
   * process when the isolate reaches its heap limit. Undefined for anything else (and for a kill).
   */
  lostReason(): string | undefined {
    if (/heap limit|heap out of memory|allocation failed/i.test(this.#stderr())) return `it ran out of memory (its heap limit is ${this.#heapMb} MB)`;
    return undefined;
  }

  /** Starts an engine; rejects with what it printed when it does not listen within the timeout. */
  static async start(options: EngineOptions): Promise<WorkerdEngine> {
    // The config and the pid file are written by the ConfinedWriter under the directory's parent: neither
    // the engine's directory nor a file in it may be a link (a local server checks the path above).
    const writer = new ConfinedWriter(dirname(options.dir)).makeRoot();
    const own = basename(options.dir);
    writer.folder(own);
    // Spawned in the same turn when nothing is left to end: a caller that starts an engine and then
    // blocks (a type check) has the engine booting meanwhile in its own process.
    const ending = endLeftover(options.dir);
    if (ending) await ending;
    const configPath = join(options.dir, 'config.capnp');
    const environmentBindings: Record<string, string> = {};
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.secrets)) {
      environmentBindings[name] = `PLATFORM_${name}`;
      env[`PLATFORM_${name}`] = value;
    }
    if (options.durableObject) mkdirSync(options.durableObject.storageDir, { recursive: true });
    // Cap'n Proto embeds files by paths relative to the config.
    const modules = options.modules.map((module) => ({ name: module.name, path: relative(options.dir, module.path) }));
    writer.writeFile(`${own}/config.capnp`, workerdConfig({ ...options, modules, environmentBindings }), { mode: 0o600 });
    // Not the control plane's environment: only what the engine needs.
    // The Worker Loader binding of a pool's process is one of workerd's experimental features.
    const child = spawn(workerdBinary(), ['serve', configPath, '--control-fd=3', ...(options.loader ? ['--experimental'] : [])], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], env });
    live.add(child);
    writer.writeFile(`${own}/workerd.pid`, String(child.pid));
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    const exited = new Promise<void>((done) => child.once('exit', () => {
      live.delete(child);
      done();
    }));
    const port = await new Promise<number>((resolve, reject) => {
      let control = '';
      // Counted while this thread is free: a type check holding it after the spawn (platform dev starts
      // the engine, then checks) is not the engine's time, and its 'listen' is read before the limit ends.
      const timer = freeTimeLimit(options.startTimeoutMs, () => fail(`(workerd) did not start within ${options.startTimeoutMs} ms (counted while this process was free, not while a type check held it)`, true));
      const fail = (why: string, timedOut = false) => {
        timer.clear();
        child.kill('SIGKILL');
        // The engine's own words name the problem (a module it cannot load, an import it cannot resolve).
        const said = stderr.replace(/\s+/g, ' ').trim();
        reject(new EngineStartError(`The engine ${why}${said ? `: ${said.slice(0, 1000)}` : '.'}`, timedOut));
      };
      (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
        control += chunk.toString();
        for (const line of control.split('\n')) {
          const event = /"event":"listen".*"port":(\d+)/.exec(line);
          if (event) {
            timer.clear();
            resolve(Number(event[1]));
            return;
          }
        }
      });
      child.once('exit', () => setTimeout(() => fail('stopped while starting'), 20));
      child.once('error', (error) => fail(`could not be run (${error.message})`));
    });
    return new WorkerdEngine(child, port, exited, options.heapMb, () => stderr);
  }

  /**
   * The engine's resident memory, in bytes (Linux); undefined where it cannot be read. Read again at
   * most every RESIDENT_READ_MS: a pool reads it as each request begins and ends, and at a thousand
   * requests a second the reads of /proc took a tenth of the control plane's thread.
   */
  residentBytes(): number | undefined {
    const now = performance.now();
    if (this.#resident && now - this.#resident.at < RESIDENT_READ_MS) return this.#resident.bytes;
    let bytes: number | undefined;
    try {
      bytes = Number(readFileSync(`/proc/${this.#child.pid}/statm`, 'utf8').split(' ')[1]) * 4096;
    } catch {
      bytes = undefined;
    }
    this.#resident = { at: now, bytes };
    return bytes;
  }

  /** Ends the engine at once (a runaway handler cannot be stopped any other way). */
  kill(): Promise<void> {
    this.#child.kill('SIGKILL');
    return this.exited;
  }
}
