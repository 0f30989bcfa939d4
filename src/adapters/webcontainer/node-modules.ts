/**
 * The compiler's view of packages installed in a WebContainer: its `node_modules` read back as project
 * files (`node_modules/<name>/…`), which the compiler worker resolves bare imports from (DG1207/DG1208).
 */
import type { ContainerFs } from './container-api';

/** Caps, so a huge dependency tree cannot flood the page: past them the read stops with an error. */
export const NODE_MODULES_LIMITS = { files: 20_000, bytes: 200 * 1024 * 1024 };

/** Folders of node_modules the compiler never reads. */
const SKIPPED = new Set(['.bin', '.cache', '.package-lock.json']);

export async function collectNodeModules(fs: Pick<ContainerFs, 'readdir' | 'readFile'>, root: string, limits = NODE_MODULES_LIMITS): Promise<Record<string, Uint8Array>> {
  const out: Record<string, Uint8Array> = {};
  let files = 0;
  let bytes = 0;
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return; // No node_modules (nothing installed yet).
    }
    for (const entry of [...entries].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (SKIPPED.has(entry.name)) continue;
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        await walk(path);
      } else if (entry.isFile()) {
        const data = await fs.readFile(path);
        files += 1;
        bytes += data.byteLength;
        if (files > limits.files || bytes > limits.bytes) throw new Error(`node_modules is larger than the playground reads (${limits.files} files, ${limits.bytes / 1024 / 1024} MiB).`);
        out[path] = data;
      }
    }
  };
  await walk(root);
  return out;
}
