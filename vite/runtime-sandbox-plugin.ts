/**
 * `virtual:runtime-sandbox`: the runtime sandbox's code as a string. worker/runtime-sandbox.ts is
 * bundled with native esbuild into one classic script (IIFE, sql.js included; its wasm is passed in as
 * bytes), because it runs as a blob worker inside a sandboxed iframe, where Vite's module graph and
 * the playground's origin are out of reach. In dev the bundle's inputs are watched; in a build it is
 * minified.
 */
import { resolve } from 'node:path';
import { build, type Plugin as EsbuildPlugin } from 'esbuild';
import type { Plugin } from 'vite';

const ID = 'virtual:runtime-sandbox';
const RESOLVED = `\0${ID}`;

/**
 * The runtime's router imports `parseEndpointKey` from src/core/analyze/server-definition.ts, which
 * imports TypeScript (3 MB) for the compiler's reading of `defineServer`. The runtime never calls
 * TypeScript: it is replaced here by a stub that throws if it ever is.
 */
const withoutTypeScript: EsbuildPlugin = {
  name: 'without-typescript',
  setup(build) {
    build.onResolve({ filter: /^typescript$/ }, () => ({ path: 'typescript', namespace: 'runtime-sandbox-stub' }));
    build.onLoad({ filter: /.*/, namespace: 'runtime-sandbox-stub' }, () => ({
      contents: 'export default new Proxy({}, { get() { throw new Error("TypeScript is not part of the runtime sandbox."); } });',
      loader: 'js',
    }));
  },
};

export function runtimeSandboxPlugin(): Plugin {
  let root = process.cwd();
  let production = false;
  return {
    name: 'runtime-sandbox',
    configResolved(config) {
      root = config.root;
      production = config.command === 'build';
    },
    resolveId: (source) => (source === ID ? RESOLVED : undefined),
    async load(id) {
      if (id !== RESOLVED) return undefined;
      const result = await build({
        entryPoints: [resolve(root, 'worker/runtime-sandbox.ts')],
        absWorkingDir: root,
        bundle: true,
        write: false,
        format: 'iife',
        platform: 'browser',
        target: 'es2022',
        minify: production,
        sourcemap: production ? false : 'inline',
        metafile: true,
        legalComments: 'none',
        charset: 'utf8',
        logLevel: 'silent',
        plugins: [withoutTypeScript],
        define: { 'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development') },
      });
      // The project's own inputs (not node_modules, not the stub's namespace) are watched in dev.
      for (const input of Object.keys(result.metafile.inputs)) {
        if (!input.includes('node_modules') && !/^[\w-]+:/.test(input)) this.addWatchFile(resolve(root, input));
      }
      const code = result.outputFiles[0]?.text;
      if (code === undefined) throw new Error('esbuild produced no runtime sandbox bundle.');
      return `export default ${JSON.stringify(code)};`;
    },
  };
}
