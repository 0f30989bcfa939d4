/**
 * The NodeEnvironment over @webcontainer/api: feature detection, one boot raced against a preflight
 * request to the origin that serves WebContainers and a timeout (offline, `WebContainer.boot()` never
 * settles, but the preflight fails at once), the project mounted at the working directory, the
 * platform toolchain under `.platform-toolchain/`, and `platform <args>` as `node` running the real CLI.
 */
import type { FileSystemTree } from '@webcontainer/api';
import type { ContainerApi, ContainerProcess } from './container-api';
import type { EnvironmentStatus, NodeEnvironment, NodeProcess, SpawnOptions } from './environment';
import { planSync, toFileSystemTree, underFolder, type ProjectFiles } from './file-tree';
import { EMBEDDER_POLICY } from './isolation';
import { collectNodeModules } from './node-modules';
import { platformInvocation, TOOLCHAIN_DIR } from './toolchain';

export type BootContainer = (options: { coep: typeof EMBEDDER_POLICY; workdirName: string }) => Promise<ContainerApi>;

export interface WebContainerOptions {
  /** Boots the container; by default `WebContainer.boot` of @webcontainer/api, loaded on first use. */
  bootContainer?: BootContainer;
  /** How long boot may take before the environment is unavailable (default 15 s). */
  timeoutMs?: number;
  /** What the page offers; by default read from `globalThis` (`online` from `navigator.onLine`). */
  features?: { crossOriginIsolated: boolean; sharedArrayBuffer: boolean; online?: boolean };
  /**
   * Asks the origin that serves WebContainers whether it can be reached; rejects when it cannot. Run
   * beside the boot, so an unreachable origin is known at once instead of when the timeout fires.
   * With the default boot, a credential-less `no-cors` GET of its `/headless` page; with another
   * `bootContainer`, none unless given.
   */
  preflight?: { origin: string; reach(): Promise<void> };
  /** The toolchain's files (the CLI bundle, its package.json, …), fetched on first use. */
  loadToolchain(): Promise<ProjectFiles>;
  setTimeout?: (callback: () => void, ms: number) => unknown;
}

export const DEFAULT_BOOT_TIMEOUT_MS = 15_000;
const WORKDIR_NAME = 'project';

function pageFeatures(): { crossOriginIsolated: boolean; sharedArrayBuffer: boolean; online?: boolean } {
  const online = (globalThis as { navigator?: { onLine?: boolean } }).navigator?.onLine;
  return { crossOriginIsolated: (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true, sharedArrayBuffer: typeof SharedArrayBuffer === 'function', online };
}

/** Where @webcontainer/api loads its headless frame from (it reads the same global). */
export function editorOrigin(): string {
  return new URL((globalThis as { WEBCONTAINER_API_IFRAME_URL?: string }).WEBCONTAINER_API_IFRAME_URL ?? 'https://stackblitz.com').origin;
}

function defaultPreflight(): { origin: string; reach(): Promise<void> } {
  const origin = editorOrigin();
  // An opaque answer is enough: the request failing (no network, no DNS, blocked) is the signal.
  return { origin, reach: async () => void (await fetch(`${origin}/headless`, { mode: 'no-cors', credentials: 'omit', cache: 'no-store' })) };
}

async function defaultBoot(options: { coep: typeof EMBEDDER_POLICY; workdirName: string }): Promise<ContainerApi> {
  const { WebContainer } = await import('@webcontainer/api');
  return (await WebContainer.boot(options)) as unknown as ContainerApi;
}

function wrap(process: ContainerProcess): NodeProcess {
  return {
    output: process.output,
    exit: process.exit,
    kill: () => process.kill(),
    async write(data) {
      const writer = process.input.getWriter();
      try {
        await writer.write(data);
      } finally {
        writer.releaseLock();
      }
    },
  };
}

/** Reads a whole stream into a string (the toolchain install's output, shown only when it fails). */
async function drainTo(output: ReadableStream<string>, sink: (text: string) => void): Promise<void> {
  const reader = output.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    sink(value);
  }
}

export class WebContainerEnvironment implements NodeEnvironment {
  #status: EnvironmentStatus = { state: 'idle' };
  readonly #listeners = new Set<(status: EnvironmentStatus) => void>();
  readonly #options: WebContainerOptions;
  #booting: Promise<EnvironmentStatus> | undefined;
  #container: ContainerApi | undefined;
  /** What the container holds of the project, to sync the difference before each command. */
  #mounted: ProjectFiles = {};
  #toolchain: Promise<void> | undefined;
  #disposed = false;

  constructor(options: WebContainerOptions) {
    this.#options = options;
  }

  get status(): EnvironmentStatus {
    return this.#status;
  }

  onStatus(listener: (status: EnvironmentStatus) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #set(status: EnvironmentStatus): EnvironmentStatus {
    this.#status = status;
    for (const listener of this.#listeners) listener(status);
    return status;
  }

  boot(): Promise<EnvironmentStatus> {
    this.#booting ??= this.#boot();
    return this.#booting;
  }

  async #boot(): Promise<EnvironmentStatus> {
    const features = this.#options.features ?? pageFeatures();
    if (!features.crossOriginIsolated) return this.#set({ state: 'unavailable', reason: { kind: 'not-isolated' } });
    if (!features.sharedArrayBuffer) return this.#set({ state: 'unavailable', reason: { kind: 'no-shared-memory' } });
    if (features.online === false) return this.#set({ state: 'unavailable', reason: { kind: 'offline' } });
    this.#set({ state: 'booting' });
    const timeoutMs = this.#options.timeoutMs ?? DEFAULT_BOOT_TIMEOUT_MS;
    const schedule = this.#options.setTimeout ?? ((callback: () => void, ms: number) => setTimeout(callback, ms));
    const preflight = this.#options.preflight ?? (this.#options.bootContainer ? undefined : defaultPreflight());
    const booted = (this.#options.bootContainer ?? defaultBoot)({ coep: EMBEDDER_POLICY, workdirName: WORKDIR_NAME });
    const outcome = await Promise.race([
      booted.then((container) => ({ container }), (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) })),
      // Reaching the origin proves nothing (the boot goes on); failing to reach it ends the wait.
      preflight
        ? preflight.reach().then(
            () => new Promise<never>(() => undefined),
            () => ({ unreachable: preflight.origin }),
          )
        : new Promise<never>(() => undefined),
      new Promise<{ timedOut: true }>((resolve) => schedule(() => resolve({ timedOut: true }), timeoutMs)),
    ]);
    if ('timedOut' in outcome || 'unreachable' in outcome) {
      // A boot that finishes after all (a slow network) still makes the environment ready.
      booted.then((container) => this.#adopt(container), () => undefined);
      return this.#set({ state: 'unavailable', reason: 'unreachable' in outcome ? { kind: 'unreachable', origin: outcome.unreachable } : { kind: 'timeout', afterMs: timeoutMs } });
    }
    if ('error' in outcome) return this.#set({ state: 'unavailable', reason: { kind: 'boot-failed', message: outcome.error } });
    return this.#adopt(outcome.container);
  }

  #adopt(container: ContainerApi): EnvironmentStatus {
    if (this.#disposed) {
      container.teardown();
      return this.#status;
    }
    this.#container = container;
    return this.#set({ state: 'ready' });
  }

  #ready(): ContainerApi {
    if (!this.#container) throw new Error('The WebContainer is not booted.');
    return this.#container;
  }

  async mount(files: ProjectFiles): Promise<void> {
    const container = this.#ready();
    const plan = planSync(this.#mounted, files);
    for (const path of plan.remove) await container.fs.rm(path, { force: true });
    const written = Object.keys(plan.write);
    if (written.length) await container.mount(toFileSystemTree(plan.write));
    this.#mounted = { ...files };
  }

  async spawn(command: string, args: readonly string[], options: SpawnOptions = {}): Promise<NodeProcess> {
    const container = this.#ready();
    const cwd = options.cwd ? `${container.workdir}/${options.cwd}` : container.workdir;
    return wrap(await container.spawn(command, [...args], { cwd, ...(options.terminal ? { terminal: options.terminal } : {}) }));
  }

  /** Mounts the toolchain and installs its packages (TypeScript, esbuild, sql.js, Preact), once. */
  #prepareToolchain(onSetup: (text: string) => void): Promise<void> {
    this.#toolchain ??= (async () => {
      const container = this.#ready();
      onSetup('Installing the platform CLI in the WebContainer (npm install, once per page)…\r\n');
      await container.mount(underFolder(TOOLCHAIN_DIR, toFileSystemTree(await this.#options.loadToolchain())));
      const install = await container.spawn('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: `${container.workdir}/${TOOLCHAIN_DIR}` });
      let log = '';
      const [code] = await Promise.all([install.exit, drainTo(install.output, (text) => (log += text))]);
      if (code !== 0) throw new Error(`npm install of the platform CLI's packages exited with ${code}:\n${log.trim()}`);
    })();
    // A failed preparation is tried again by the next command.
    this.#toolchain.catch(() => (this.#toolchain = undefined));
    return this.#toolchain;
  }

  async platform(args: readonly string[], options: SpawnOptions & { onSetup?(text: string): void } = {}): Promise<NodeProcess> {
    const container = this.#ready();
    await this.#prepareToolchain(options.onSetup ?? (() => undefined));
    const invocation = platformInvocation(container.workdir, args);
    return this.spawn(invocation.command, invocation.args, options);
  }

  async installDependencies(options: SpawnOptions = {}): Promise<NodeProcess | undefined> {
    this.#ready();
    const text = this.#mounted['package.json'];
    let manifest: { dependencies?: Record<string, string> } | undefined;
    try {
      manifest = typeof text === 'string' ? (JSON.parse(text) as typeof manifest) : undefined;
    } catch {
      // Not JSON: `platform check` reports it; there is nothing to install.
    }
    if (!manifest?.dependencies || typeof manifest.dependencies !== 'object' || Object.keys(manifest.dependencies).length === 0) return undefined;
    return this.spawn('npm', ['install', '--no-audit', '--no-fund'], options);
  }

  async nodeModules(): Promise<Record<string, Uint8Array>> {
    const container = this.#ready();
    return collectNodeModules(container.fs, 'node_modules');
  }

  onServerReady(listener: (port: number, url: string) => void): () => void {
    return this.#container?.on?.('server-ready', listener) ?? (() => undefined);
  }

  dispose(): void {
    this.#disposed = true;
    this.#container?.teardown();
    this.#container = undefined;
  }
}
