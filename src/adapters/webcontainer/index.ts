/**
 * The optional Node.js environment of the playground (a WebContainer): the interface, its one instance
 * per page, and the pure helpers the terminal and the tests use.
 */
import type { NodeEnvironment } from './environment';
import { fetchToolchain } from './toolchain';
import { WebContainerEnvironment, type WebContainerOptions } from './webcontainer-environment';

export { describeUnavailable, type EnvironmentStatus, type NodeEnvironment, type NodeProcess, type SpawnOptions, type UnavailableReason } from './environment';
export { planSync, toFileSystemTree, type ProjectFiles } from './file-tree';
export { ISOLATION_HEADERS } from './isolation';
export { DEFAULT_BOOT_TIMEOUT_MS, WebContainerEnvironment, type WebContainerOptions } from './webcontainer-environment';

let shared: NodeEnvironment | undefined;

/**
 * The page's one environment: a WebContainer can be booted once per page (`WebContainer.boot` refuses
 * a second), so every terminal, project and re-render shares this one. `options` count only on the first call.
 */
export function pageEnvironment(options: Partial<WebContainerOptions> = {}): NodeEnvironment {
  shared ??= new WebContainerEnvironment({
    loadToolchain: () => fetchToolchain(String((globalThis as { location?: unknown }).location ?? '')),
    ...options,
  });
  return shared;
}
