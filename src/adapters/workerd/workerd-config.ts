/**
 * The workerd configuration (Cap'n Proto text) of one engine process: one worker of ES modules, its
 * Durable Object namespace with SQLite storage on a local directory, no outbound network, a V8 heap
 * limit, and one HTTP socket on loopback (port 0: the engine reports the port it got). A pooled
 * process (`loader`) also gets the Worker Loader binding and the control plane's lease source.
 */

export interface WorkerdConfig {
  /** Modules by name; the first is the entry. Paths are relative to the config file. */
  modules: Array<{ name: string; path: string }>;
  /**
   * The Durable Object class the entry exports, bound as `binding` (default `STORE`) under the
   * namespace key `uniqueKey` (default `platform-app-store`); its data lives under `storageDir`.
   */
  durableObject?: { className: string; storageDir: string; binding?: string; uniqueKey?: string };
  /**
   * A pool's host worker (worker/workerd-pool.ts): the Worker Loader binding (`LOADER`, which needs
   * workerd's `--experimental`) and `SOURCE`, the only service it may reach: the control plane's lease
   * source at `sourceAddress` (host:port on loopback).
   */
  loader?: { sourceAddress: string };
  /** Bindings read from the engine process's environment (secrets never go in the file). */
  environmentBindings: Record<string, string>;
  /** V8's old-generation limit, MiB. */
  heapMb: number;
  /**
   * Gives the isolate V8's `gc()` (`--expose-gc`). Only for a trusted entry that takes it before any app
   * code loads and empties the global the app would see (worker/workerd-app.ts).
   */
  exposeGc?: boolean;
  compatibilityDate: string;
}

/**
 * V8's heap starts small and its young generation stays small: full collections (which stop the
 * isolate, and every request queued on it) come more often but each is shorter — at 50 requests in
 * flight the longest pause fell from ~100 ms to ~40 ms, at the same throughput.
 */
const GC_FLAGS = ['--initial-old-space-size=2', '--max-semi-space-size=4'];

/** A Cap'n Proto text literal. */
function text(value: string): string {
  return JSON.stringify(value);
}

export function workerdConfig(config: WorkerdConfig): string {
  const modules = config.modules.map((module) => `(name = ${text(module.name)}, esModule = embed ${text(module.path)})`).join(',\n    ');
  const bindings = Object.entries(config.environmentBindings).map(([name, variable]) => `(name = ${text(name)}, fromEnvironment = ${text(variable)})`);
  const object = config.durableObject;
  if (object) bindings.push(`(name = ${text(object.binding ?? 'STORE')}, durableObjectNamespace = ${text(object.className)})`);
  const loader = config.loader;
  if (loader) bindings.push('(name = "LOADER", workerLoader = ())', '(name = "SOURCE", service = "source")');
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "app", worker = .app),
    # Outbound requests go nowhere: no address is allowed.
    (name = "no-network", network = (allow = [], deny = [])),${loader ? `\n    (name = "source", external = (address = ${text(loader.sourceAddress)}, http = ())),` : ''}${object ? `\n    (name = "storage", disk = (path = ${text(object.storageDir)}, writable = true)),` : ''}
  ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "app") ],
  v8Flags = [ ${[`--max-old-space-size=${config.heapMb}`, ...GC_FLAGS, ...(config.exposeGc ? ['--expose-gc'] : [])].map(text).join(', ')} ],
);

const app :Workerd.Worker = (
  compatibilityDate = ${text(config.compatibilityDate)},${loader ? '\n  compatibilityFlags = ["experimental"],' : ''}
  modules = [
    ${modules}
  ],
  bindings = [ ${bindings.join(', ')} ],
  globalOutbound = "no-network",${object ? `\n  durableObjectNamespaces = [ (className = ${text(object.className)}, uniqueKey = ${text(object.uniqueKey ?? 'platform-app-store')}, enableSql = true, preventEviction = true) ],\n  durableObjectStorage = (localDisk = "storage"),` : ''}
);
`;
}
