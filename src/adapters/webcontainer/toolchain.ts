/**
 * Where the platform toolchain lives in a WebContainer and how `platform <args>` runs there: `node` on
 * the CLI bundle that the build emits as a static asset (see vite/platform-toolchain-plugin.ts).
 */
import type { ProjectFiles } from './file-tree.ts';

/** The toolchain's folder in the container's working directory: a dot-folder, so no command reads it as app code. */
export const TOOLCHAIN_DIR = '.platform-toolchain';

/** The CLI bundle's path inside the toolchain folder. */
export const CLI_ENTRY = 'cli.mjs';

/** The asset (relative to the page's base URL) holding every toolchain file, as `{ files: { path: text } }`. */
export const TOOLCHAIN_ASSET = 'platform-toolchain.json';

/** `platform <args>` as a process: `node <workdir>/.platform-toolchain/cli.mjs <args>`, in the project. */
export function platformInvocation(workdir: string, args: readonly string[]): { command: string; args: string[] } {
  return { command: 'node', args: [`${workdir}/${TOOLCHAIN_DIR}/${CLI_ENTRY}`, ...args] };
}

/** Fetches the toolchain asset the build emitted. */
export async function fetchToolchain(baseUrl: string, fetcher: typeof fetch = fetch): Promise<ProjectFiles> {
  const response = await fetcher(new URL(TOOLCHAIN_ASSET, baseUrl).href);
  if (!response.ok) throw new Error(`The platform toolchain could not be loaded (${response.status}).`);
  const body = (await response.json()) as { files?: Record<string, string> };
  if (!body.files || typeof body.files !== 'object') throw new Error('The platform toolchain asset has no files.');
  return body.files;
}
