/**
 * `virtual:template-artifacts`: each bundled template's preview bundles (client and server, what the
 * compiler worker's `preview` mode makes), built at build time by the CLI's compiler (native esbuild,
 * which gives the same bytes as esbuild-wasm) and kept only for a template that type-checks with no
 * diagnostic at all. Keyed by the digest of the files as the playground holds them (every file but
 * README.md, as text: src/ui/projects/templates.ts and known-good.ts), so a project whose files are a
 * template's, byte for byte, shows its first preview without waiting for the compiler to start
 * (src/ui/compiler-client.ts). The page loads this module only for such a project.
 */
import { join } from 'node:path';
import type { Plugin } from 'vite';
import { nodeCompiler } from '../src/adapters/node/compiler.ts';
import { nodeTemplates } from '../src/adapters/node/templates.ts';
import { compileProject } from '../src/core/build/index.ts';
import { MemoryFileSystem } from '../src/core/fs/index.ts';
import { canonicalJson, sha256Hex } from '../src/core/hash/index.ts';

export const TEMPLATE_ARTIFACTS_ID = 'virtual:template-artifacts';

/** digest of the template's files → bundle path → text. */
export async function templateArtifacts(root: string): Promise<Record<string, Record<string, string>>> {
  const compiler = nodeCompiler();
  const decoder = new TextDecoder();
  const out: Record<string, Record<string, string>> = {};
  for (const template of nodeTemplates(join(root, 'templates'))) {
    const entries = Object.entries(template.files).filter(([path]) => path !== 'README.md');
    if (entries.some(([, content]) => typeof content !== 'string')) continue;
    const files = Object.fromEntries(entries) as Record<string, string>;
    const outcome = await compileProject(new MemoryFileSystem(files), compiler, { targets: ['client', 'server'] });
    if (outcome.diagnostics.length || !outcome.files) continue;
    out[sha256Hex(canonicalJson(files))] = Object.fromEntries([...outcome.files].map(([path, bytes]) => [path, decoder.decode(bytes)]));
  }
  return out;
}

/**
 * `virtual:template-artifacts` is small: the digests, each with a loader of its own chunk
 * (`virtual:template-artifacts/<digest>`), so a project loads only its template's bundles, and other
 * projects none.
 */
export function templateArtifactsPlugin(root: string): Plugin {
  let built: Promise<Record<string, Record<string, string>>> | undefined;
  const artifacts = () => (built ??= templateArtifacts(root));
  return {
    name: 'platform-template-artifacts',
    buildStart() {
      built = undefined;
    },
    resolveId: (source) => (source === TEMPLATE_ARTIFACTS_ID || source.startsWith(`${TEMPLATE_ARTIFACTS_ID}/`) ? `\0${source}` : undefined),
    async load(id) {
      if (id === `\0${TEMPLATE_ARTIFACTS_ID}`) {
        // Each template's files, not their folder: Vite's dev server takes a watched path for an import of
        // this module, and a folder does not resolve (its error overlay covered the gallery in `npm start`).
        for (const template of nodeTemplates(join(root, 'templates'))) for (const path of Object.keys(template.files)) this.addWatchFile(join(root, 'templates', template.id, path));
        const loaders = Object.keys(await artifacts()).map((digest) => `${JSON.stringify(digest)}: () => import(${JSON.stringify(`${TEMPLATE_ARTIFACTS_ID}/${digest}`)})`);
        return `export default {\n${loaders.join(',\n')}\n};`;
      }
      if (id.startsWith(`\0${TEMPLATE_ARTIFACTS_ID}/`)) {
        const bundles = (await artifacts())[id.slice(`\0${TEMPLATE_ARTIFACTS_ID}/`.length)];
        return `export default ${JSON.stringify(bundles ?? {})};`;
      }
      return undefined;
    },
  };
}
