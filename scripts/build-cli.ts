/**
 * Builds the `platform` CLI ahead of time into `build/cli/` (git ignores it), so a run starts in Node
 * without transpiling: `npm install` runs it (the `prepare` step), `npm run build:cli` by hand, and the
 * unit and end-to-end test setups before the tests (so the CLI they spawn is the current sources).
 *
 * esbuild bundles `src/cli/main.ts` and what it imports from this checkout, ES modules split at each
 * dynamic import (TypeScript, esbuild, workerd, the MCP server load only when a command needs them);
 * packages stay in node_modules. The node adapters find their files relative to their own module, so
 * each module's `import.meta` is rewritten to its checkout path, as for the WebContainer toolchain.
 *
 * `inputs.json` lists the source files with the time the build started: `bin/platform.mjs` runs the
 * prebuilt CLI only while none of them is newer, and the sources through tsx otherwise, so an edit is
 * never hidden behind a stale build.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { RUNTIME_REQUIRE_KEY, STARTUP_SNAPSHOT_KEY } from '../src/adapters/node/startup-snapshot';
import { checkoutBanner, checkoutPaths } from '../src/adapters/webcontainer/toolchain-bundle';
import { CHECK_CACHE_KEY } from '../src/cli/check-cache';
import { SNAPSHOT_BLOB, SNAPSHOT_INFO, SNAPSHOT_LAUNCHER, snapshotArgs, snapshotInfo } from '../bin/prebuilt.mjs';

export const ROOT = join(import.meta.dirname, '..');
/** Checkout-relative: the prebuilt CLI's folder, its entry and its list of inputs (read by bin/platform.mjs). */
export const CLI_DIR = 'build/cli';
export const CLI_MAIN = `${CLI_DIR}/main.js`;
export const CLI_INPUTS = `${CLI_DIR}/inputs.json`;

/** The start-up snapshot's entry, bundled into one CommonJS script (what `node --build-snapshot` takes). */
const SNAPSHOT_ENTRY = `${CLI_DIR}/snapshot-entry.cjs`;

export interface CliInputs {
  /** When the build started (ms since the epoch, as `statSync().mtimeMs`): an input modified later makes the build stale. */
  builtAt: number;
  /** The checkout files bundled, checkout-relative POSIX paths. */
  inputs: string[];
}

/**
 * TypeScript (9 MB of JavaScript) is loaded by the first use of `ts.…`, not by `import ts from 'typescript'`:
 * the import resolves to a proxy that loads the package on its first property read. `platform --help`,
 * `explain` or `deploy` never read one; `check` reads one as it parses. Only the default import is used in
 * the sources (`import ts from 'typescript'`; type-only imports are erased).
 *
 * The package is compiled with V8's code cache (`typescript.cache` beside the CLI, written at the exit of the
 * run that found none or found it rejected, so it holds the functions that run used too): V8 checks the cache
 * against the source and its own version and flags, and compiles from the source when it does not match.
 */
const LAZY_TYPESCRIPT = `
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const require = createRequire(import.meta.url);
const cacheFile = fileURLToPath(new URL('typescript.cache', import.meta.url));
let ts;

function compile() {
  const filename = require.resolve('typescript');
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {}
  const source = readFileSync(filename, 'utf8');
  const script = new Script('(function (exports, require, module, __filename, __dirname) {' + source + '\\n})', { filename, cachedData });
  if (!cachedData || script.cachedDataRejected) {
    process.once('exit', () => {
      try {
        const scratch = cacheFile + '.' + process.pid + '.tmp';
        writeFileSync(scratch, script.createCachedData());
        renameSync(scratch, cacheFile);
      } catch {}
    });
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(filename), module, filename, dirname(filename));
  return module.exports;
}

// A process started from the CLI's start-up snapshot has TypeScript loaded already (src/cli/snapshot.ts).
const load = () => (ts ??= globalThis[Symbol.for(${JSON.stringify(STARTUP_SNAPSHOT_KEY)})]?.ts ?? compile());
export default new Proxy({}, {
  get: (_, key) => load()[key],
  has: (_, key) => key in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(load(), key),
});
`;

function lazyTypeScript(): esbuild.Plugin {
  return {
    name: 'lazy-typescript',
    setup(build) {
      build.onResolve({ filter: /^typescript$/ }, (args) => (args.kind === 'import-statement' ? { path: 'typescript', namespace: 'lazy-typescript' } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'lazy-typescript' }, () => ({ loader: 'js', contents: LAZY_TYPESCRIPT }));
    },
  };
}

/** Writes a file whole or not at all: a CLI starting meanwhile reads the old file or the new one. */
function writeAtomically(path: string, text: string): void {
  const scratch = `${path}.${process.pid}.tmp`;
  writeFileSync(scratch, text);
  renameSync(scratch, path);
}

/** What both bundles of the CLI share: Node 20, in memory, with the inputs listed, quiet. */
function nodeBundle(root: string) {
  return { absWorkingDir: root, bundle: true, write: false, platform: 'node', target: 'node20', metafile: true, logLevel: 'silent', legalComments: 'none' } as const;
}

/** Builds the CLI into `root/build/cli`; returns the list of inputs written to `inputs.json`. */
export async function buildCli(root: string = ROOT): Promise<CliInputs> {
  const builtAt = Date.now();
  const outdir = join(root, CLI_DIR);
  const result = await esbuild.build({
    ...nodeBundle(root),
    // The CLI, and the bundle and check threads `platform dev` starts (src/adapters/node/thread-bundler.ts and
    // thread-analyzer.ts find them beside their chunks).
    entryPoints: [join(root, 'src/cli/main.ts'), join(root, 'src/adapters/node/bundle-thread.ts'), join(root, 'src/adapters/node/check-thread.ts')],
    splitting: true,
    outdir,
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    format: 'esm',
    packages: 'external',
    banner: { js: checkoutBanner(`${CLI_DIR}/main.js`) },
    // What tells the prebuilt modules from the sources run through tsx (src/adapters/node/thread-bundler.ts).
    define: { 'import.meta.prebuiltCli': 'true' },
    plugins: [lazyTypeScript(), checkoutPaths(root)],
  });
  mkdirSync(outdir, { recursive: true });
  // Chunks first (their names carry a hash, so a CLI already running keeps finding its own), then the entry, then the inputs.
  const files = [...result.outputFiles].sort((a, b) => Number(basename(a.path) === 'main.js') - Number(basename(b.path) === 'main.js'));
  for (const file of files) writeAtomically(file.path, file.text);
  const snapshotInputs = await buildSnapshot(root);
  // A key of this build's own, which `check` signs the answers it keeps with (src/cli/check-cache.ts):
  // answers kept by another build, or written by anyone else, are not taken.
  const key = join(root, CHECK_CACHE_KEY);
  writeFileSync(`${key}.${process.pid}.tmp`, randomBytes(32), { mode: 0o600 });
  renameSync(`${key}.${process.pid}.tmp`, key);
  const inputs: CliInputs = {
    builtAt,
    inputs: [...new Set([...Object.keys(result.metafile.inputs), ...snapshotInputs])]
      .filter((path) => !path.includes('node_modules/') && !path.includes(':'))
      .map((path) => relative(root, join(root, path)).split(sep).join('/'))
      .sort(),
  };
  writeAtomically(join(root, CLI_INPUTS), `${JSON.stringify(inputs, null, 1)}\n`);
  // Chunks of earlier builds: kept for a day (a CLI started before this build may still load them), then removed.
  const current = new Set([...files.map((file) => basename(file.path)), basename(CLI_INPUTS)]);
  for (const name of readdirSync(outdir)) {
    const path = join(outdir, name);
    if (!current.has(name) && name.endsWith('.js') && statSync(path).mtimeMs < builtAt - 86_400_000) rmSync(path, { force: true });
  }
  return inputs;
}

/**
 * V8's options for the snapshot, which a process must start with to use it (V8 refuses a snapshot built
 * with other flags; the record carries them to the launchers). A first heap limit of 256 MB: a process
 * started from the snapshot holds about 100 MB at once, and with V8's first limit it ran a full
 * mark-compact of it in the middle of every `check` (about 60 ms of CPU, measured interleaved).
 */
const SNAPSHOT_V8_FLAGS = ['--initial-heap-size=256'];

/**
 * Packages the snapshot's bundle leaves out, required from the checkout when first used
 * (RUNTIME_REQUIRE_KEY, set by src/cli/snapshot.ts as the process starts): esbuild and workerd find
 * their binaries beside their own files (esbuild refuses to be bundled); fflate makes a TextDecoder as
 * it loads, the MCP SDK and the HTTP server hold native objects too, which a snapshot cannot keep
 * (`node --build-snapshot` stops on them). None is used while the snapshot is built.
 */
const REQUIRED_AT_RUN = /^(esbuild|fflate|workerd|@modelcontextprotocol\/sdk|@hono\/node-server)(\/|$)/;

function packagesRequiredAtRun(root: string): esbuild.Plugin {
  const here = createRequire(join(root, 'package.json'));
  return {
    name: 'packages-required-at-run',
    setup(build) {
      build.onResolve({ filter: REQUIRED_AT_RUN }, (args) => ({ path: args.path, namespace: 'required-at-run' }));
      // Each export a getter: the bundle's modules that import the package, some of them run as the
      // snapshot is built, take its exports' names then and read them only when used.
      build.onLoad({ filter: /.*/, namespace: 'required-at-run' }, (args) => {
        const names = Object.keys(here(args.path) as object);
        const load = `() => globalThis[Symbol.for(${JSON.stringify(RUNTIME_REQUIRE_KEY)})](${JSON.stringify(args.path)})`;
        return { loader: 'js', contents: `const load = ${load};\nfor (const name of ${JSON.stringify(names)}) Object.defineProperty(module.exports, name, { enumerable: true, get: () => load()[name] });\n` };
      });
    },
  };
}

/**
 * The start-up snapshot (src/cli/snapshot.ts): TypeScript loaded, the library's files parsed and bound, and
 * the CLI for `check` and `build`, written as `startup.blob` with `startup.env` recording its size and the
 * Node it was built by (a blob runs only in that Node, and whole; bin/platform and bin/platform.mjs use it
 * only then). A snapshot that cannot be built leaves none: the CLI then starts the ordinary way, only
 * slower. Returns the checkout files it bundled.
 */
async function buildSnapshot(root: string): Promise<string[]> {
  const outdir = join(root, CLI_DIR);
  const result = await esbuild.build({
    ...nodeBundle(root),
    entryPoints: [join(root, 'src/cli/snapshot.ts')],
    outfile: join(root, SNAPSHOT_ENTRY),
    format: 'cjs',
    // ESM builds first: jsonc-parser's UMD main requires its parts by computed paths a bundle cannot follow.
    mainFields: ['module', 'main'],
    banner: {
      js: [
        `const __checkoutRoot = ${JSON.stringify(root)};`,
        "const __checkoutDir = (path) => require('node:path').join(__checkoutRoot, path);",
        "const __checkoutUrl = (path) => require('node:url').pathToFileURL(require('node:path').join(__checkoutRoot, path)).href;",
      ].join('\n'),
    },
    plugins: [packagesRequiredAtRun(root), checkoutPaths(root)],
  });
  mkdirSync(outdir, { recursive: true });
  // ASCII only: one character past Latin-1 (a → in a comment esbuild keeps) makes V8 hold the whole 10 MB
  // script as a two-byte string, twice the snapshot's largest object. Escapes mean the same in comments,
  // strings, template literals, regular expressions and identifiers.
  const ascii = result.outputFiles[0]!.text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  writeAtomically(
    join(root, SNAPSHOT_LAUNCHER),
    [
      '// Run by a process started from the start-up snapshot (node --snapshot-blob startup.blob launch.cjs args…) for the',
      '// commands the snapshot does not hold (src/cli/snapshot.ts): runs the prebuilt CLI.',
      "const { pathToFileURL } = require('node:url');",
      "import(pathToFileURL(require('node:path').join(__dirname, 'main.js')).href)",
      "  .then(({ runProcess }) => runProcess(process.argv.slice(2)));",
      '// A rejection is a crash: the crash handler the snapshot installed reports it as DG0000 (bin/crash.mjs).',
      '',
    ].join('\n'),
  );
  const inputs = Object.keys(result.metafile.inputs);
  // The same entry (TypeScript and the sources bundled in it unchanged) and a whole snapshot of this Node's, built with these V8 options: kept.
  const kept = snapshotArgs(pathToFileURL(`${root}/`));
  if (readText(join(root, SNAPSHOT_ENTRY)) === ascii && kept && kept.slice(0, -3).join(' ') === SNAPSHOT_V8_FLAGS.join(' ')) return inputs;
  rmSync(join(root, SNAPSHOT_INFO), { force: true });
  writeAtomically(join(root, SNAPSHOT_ENTRY), ascii);
  const blob = join(root, SNAPSHOT_BLOB);
  const scratch = `${blob}.${process.pid}.tmp`;
  try {
    await promisify(execFile)(process.execPath, [...SNAPSHOT_V8_FLAGS, '--no-warnings', '--snapshot-blob', scratch, '--build-snapshot', join(root, SNAPSHOT_ENTRY)], { cwd: root });
    renameSync(scratch, blob);
    writeAtomically(join(root, SNAPSHOT_INFO), snapshotInfo(statSync(blob).size, SNAPSHOT_V8_FLAGS));
  } catch (error) {
    rmSync(scratch, { force: true });
    process.stderr.write(`The CLI's start-up snapshot was not built (the CLI starts without it, slower): ${(error as Error).message.split('\n')[0]}\n`);
  }
  return inputs;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const start = performance.now();
  const { inputs } = await buildCli();
  console.log(`platform CLI built into ${CLI_DIR}/ from ${inputs.length} source files in ${Math.round(performance.now() - start)} ms`);
}

/** The unit and end-to-end test setups (vitest.config.ts, playwright.config.ts): the CLI the tests spawn is the current sources, prebuilt. */
export default async function setup(): Promise<void> {
  // PLATFORM_TEST_PREBUILD=0 leaves build/cli/ as it is (several test runs at once in one checkout):
  // the launcher then runs the sources themselves wherever one is newer than that build.
  if (process.env.PLATFORM_TEST_PREBUILD === '0') return;
  await buildCli();
}
