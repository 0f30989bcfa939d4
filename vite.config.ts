import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { nodeLibrary } from './src/adapters/node/library.ts';
import { quickLibrary } from './src/core/quick/quick-bundle.ts';
import { runtimeSandboxPlugin } from './vite/runtime-sandbox-plugin.ts';
import { ISOLATION_HEADERS } from './src/adapters/webcontainer/isolation.ts';
import { platformToolchainPlugin } from './vite/platform-toolchain-plugin.ts';
import { cacheHeadersPlugin } from './vite/cache-headers-plugin.ts';
import { earlyWorkerPlugin } from './vite/early-worker-plugin.ts';
import { templateArtifactsPlugin } from './vite/template-artifacts-plugin.ts';
import { docsPlugin } from './vite/docs-plugin.ts';
import { manifestSchemaPlugin } from './vite/manifest-schema-plugin.ts';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * `virtual:platform-library`: the files the compiler worker gives every app (platform modules, Preact,
 * TypeScript's libs), assembled by the same code the CLI uses, so nothing is fetched from a CDN;
 * `virtual:platform-library/modules`: the same without declaration files, for the bundler worker;
 * `virtual:platform-library/quick`: the platform's modules and Preact's, made by Sucrase and resolved
 * here, at build time (`quickLibrary`), for the quick preview worker (worker/quick-preview.worker.ts).
 */
function platformLibrary(): Plugin {
  const id = 'virtual:platform-library';
  // The bundler worker reads modules only: the declarations (4 MB, TypeScript's libs among them) stay out of its script.
  const modules = `${id}/modules`;
  const quick = `${id}/quick`;
  return {
    name: 'platform-library',
    resolveId: (source) => (source === id || source === modules || source === quick ? `\0${source}` : undefined),
    load(loaded) {
      if (loaded !== `\0${id}` && loaded !== `\0${modules}` && loaded !== `\0${quick}`) return undefined;
      for (const name of ['types', 'wire', 'server', 'client', 'test']) this.addWatchFile(`${root}src/modules/${name}.ts`);
      const library = nodeLibrary(root);
      if (loaded === `\0${quick}`) return `export default ${JSON.stringify(quickLibrary(library))};`;
      const files = [...library.files].filter(([path]) => loaded === `\0${id}` || !/\.d\.[cm]?ts$/.test(path));
      return `export default ${JSON.stringify({ files, rendererVersion: library.rendererVersion, toolchainVersion: library.toolchainVersion })};`;
    },
  };
}

/** The pages the build emits. The harness pages host single components for the end-to-end tests and the benchmarks. */
const pages = { main: 'index.html', runtime: 'harness/runtime.html', workspace: 'harness/workspace.html' };

/**
 * The workers the playground starts. Vite's dependency scan follows the pages' imports but not a
 * `new Worker(new URL(...))`, so the packages only workers import (TypeScript, esbuild-wasm) were found
 * when the first template opened, re-optimised and the page reloaded; named here, they are scanned at start.
 */
const workers = ['worker/compiler.worker.ts', 'worker/bundler.worker.ts', 'worker/quick-preview.worker.ts'];

// The playground. Preact's automatic JSX runtime comes from tsconfig.base.json (jsxImportSource).
export default defineConfig({
  plugins: [platformLibrary(), runtimeSandboxPlugin(), platformToolchainPlugin(root), cacheHeadersPlugin(), earlyWorkerPlugin(), templateArtifactsPlugin(root), docsPlugin(root), manifestSchemaPlugin(root)],
  // Cross-origin isolation, which a WebContainer needs (docs/terminal.md says what it changes).
  server: { port: 5173, strictPort: false, headers: { ...ISOLATION_HEADERS } },
  preview: { port: 4173, strictPort: true, headers: { ...ISOLATION_HEADERS } },
  build: {
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 8192,
    rollupOptions: { input: pages },
  },
  // Naming entries replaces the scan's default (the build's pages), so the pages are named as well.
  optimizeDeps: { entries: [...Object.values(pages), ...workers] },
  worker: { format: 'es', plugins: () => [platformLibrary()] },
});
