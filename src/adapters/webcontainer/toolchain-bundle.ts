/**
 * Builds the toolchain a WebContainer runs `platform` with (Node, at build time): the CLI and the workerd
 * entry of `platform test` bundled by esbuild, the platform modules and templates they read, and a package.json whose
 * dependencies (TypeScript, esbuild, sql.js, Preact: what cannot be bundled) npm installs in the container. workerd is
 * not among them: a WebContainer runs no native binary, so `platform test` there reports DG1902.
 *
 * The node adapters find their files relative to their own module (`import.meta.dirname` + `../../..`),
 * which a single bundle would break; each module's `import.meta` is rewritten to the path it has in this
 * checkout, under the toolchain folder, so the files are where the CLI looks for them.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import * as esbuild from 'esbuild';
import { MODULE_FILES } from '../../core/project/index.ts';
import { bundleWorkerEntry } from '../workerd/workerd-engine.ts';
import { CLI_ENTRY } from './toolchain.ts';

/** What npm installs in the container: the packages the CLI loads at run time, at this checkout's versions. */
const RUNTIME_PACKAGES = ['typescript', 'esbuild', 'sql.js', 'preact'] as const;
const TEXT = /\.(json|ts|tsx|js|jsx|mjs|css|html|svg|md|txt)$/;

const toPosix = (path: string) => path.split(sep).join('/');

/**
 * `import.meta.url`/`dirname` of each checkout module, as if the module sat at its checkout path under the toolchain root.
 * Also used by the prebuilt CLI (`scripts/build-cli.ts`), whose output sits in the checkout itself.
 */
export function checkoutPaths(root: string): esbuild.Plugin {
  return {
    name: 'checkout-paths',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta')) return undefined;
        const path = toPosix(relative(root, args.path));
        const contents = text
          .replaceAll('import.meta.dirname', `__checkoutDir(${JSON.stringify(toPosix(dirname(path)))})`)
          .replaceAll('import.meta.url', `__checkoutUrl(${JSON.stringify(path)})`);
        return { contents, loader: 'ts' };
      });
    },
  };
}

/** Defines the helpers at the top of a bundle that sits at `outPath` (toolchain-relative). */
export function checkoutBanner(outPath: string): string {
  const up = '../'.repeat(outPath.split('/').length - 1) || './';
  return [
    "import { fileURLToPath as __fileURLToPath } from 'node:url';",
    "import { createRequire as __createRequire } from 'node:module';",
    `const __toolchainRoot = new URL(${JSON.stringify(up)}, import.meta.url);`,
    'const __checkoutUrl = (path) => new URL(path, __toolchainRoot).href;',
    "const __checkoutDir = (path) => __fileURLToPath(new URL(path + '/', __toolchainRoot)).replace(/\\/$/, '');",
    'const require = __createRequire(import.meta.url);',
  ].join('\n');
}

async function bundle(root: string, entry: string, outPath: string): Promise<string> {
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [join(root, entry)],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // ESM builds first: jsonc-parser's UMD main requires its parts by computed paths a bundle cannot follow.
    mainFields: ['module', 'main'],
    external: [...RUNTIME_PACKAGES, `${RUNTIME_PACKAGES[0]}/*`, 'esbuild/*', 'sql.js/*', 'preact/*', 'tsx', 'tsx/*'],
    banner: { js: checkoutBanner(outPath) },
    plugins: [checkoutPaths(root)],
    logLevel: 'silent',
    legalComments: 'none',
  });
  return result.outputFiles[0]!.text;
}

function textFilesUnder(root: string, folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (TEXT.test(name)) out[toPosix(relative(root, full))] = readFileSync(full, 'utf8');
    }
  };
  walk(join(root, folder));
  return out;
}

/** Every file of the toolchain, toolchain-relative path → text. */
export async function buildToolchain(root: string): Promise<Record<string, string>> {
  const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  // The installed versions (not the ranges): the container runs what this checkout was tested with.
  const dependencies = Object.fromEntries(RUNTIME_PACKAGES.map((name) => [name, (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version]));
  const packageJson = { name: 'platform-toolchain', version: own.version, private: true, type: 'module', description: 'The platform CLI, bundled for a WebContainer.', dependencies };
  // `platform test` bundles its workerd entry from worker/ when it runs: here that file is already the bundle, one module.
  const testEntry = 'worker/workerd-test.ts';
  const scratch = mkdtempSync(join(tmpdir(), 'platform-toolchain-'));
  const [cli, entry] = await Promise.all([bundle(root, 'src/adapters/webcontainer/cli-entry.ts', CLI_ENTRY), bundleWorkerEntry('workerd-test', scratch).then((path) => readFileSync(path, 'utf8'))]).finally(() => rmSync(scratch, { recursive: true, force: true }));
  return {
    'package.json': `${JSON.stringify(packageJson, null, 2)}\n`,
    [CLI_ENTRY]: cli,
    [testEntry]: entry,
    ...Object.fromEntries(MODULE_FILES.map((name) => [`src/modules/${name}`, readFileSync(join(root, 'src/modules', name), 'utf8')])),
    ...textFilesUnder(root, 'templates'),
  };
}
