/**
 * `platform dev` at size (`npx tsx bench/run.ts dev-size`): generated apps of 200 and 500 source files
 * (bench/generate-app.ts), each edit kind served by `platform dev` (the save to the compile.ready event,
 * which comes once the generation serves) against, in the same run, a warm incremental TypeScript builder
 * given the same change (a SemanticDiagnosticsBuilderProgram kept from the last check, as `tsc --watch`
 * keeps it, checking the app's files with the platform's options and library and the contract
 * `platform dev` generated) plus esbuild's incremental contexts for the client and the server
 * (`context.rebuild()`). The edits: a leaf client component's markup, a server handler's body, and the
 * body of src/shared/widely.ts, which a hundred files import. And `platform dev`'s start at each size,
 * and the bundle of the widely imported edit alone in the Bundler's native mode against its plugin's.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import ts from 'typescript';
import { prebuiltEntry } from '../bin/prebuilt.mjs';
import { libraryOnDisk, nodeLibrary } from '../src/adapters/node/library';
import { NodeFileSystem } from '../src/adapters/node/node-file-system';
import { directoryOf } from '../src/adapters/node/thread-bundler';
import { analyzeProject, compilerOptions } from '../src/core/analyze';
import { Bundler } from '../src/core/bundle';
import { DevProcess } from '../src/testing/dev-process';
import { APP_ROOT, ASSET_DECLARATIONS_FILE } from '../src/core/project';
import { generateApp, sourceCount, WIDELY, widelyText } from '../src/cli/generated-app';
import { median, type Row } from './stats';

/** Quicker iterations: BENCH_DEV_SIZE_SIZES=200 BENCH_DEV_SIZE_EDITS=3 (the defaults, 200,500 and 5, give the reported rows). */
const EDITS = Number(process.env.BENCH_DEV_SIZE_EDITS ?? 5);
const SIZES = process.env.BENCH_DEV_SIZE_SIZES ? process.env.BENCH_DEV_SIZE_SIZES.split(',').map(Number) : [200, 500];
const NODE_MODULES = join(import.meta.dirname, '../node_modules');
/** What `platform dev` runs: the prebuilt CLI (bundles on a thread of its own) while it is current, else the sources through tsx (bundles on the command's thread). */
const cliKind = () => (prebuiltEntry(pathToFileURL(join(import.meta.dirname, '../'))) ? 'prebuilt CLI' : 'CLI from its sources: the prebuilt one was stale');

/** A warm incremental TypeScript builder over the platform's library and the app's files, in memory. */
class WarmBuilder {
  readonly #texts = new Map<string, string>();
  readonly #parsed = new Map<string, { text: string; file: ts.SourceFile }>();
  readonly #options = compilerOptions();
  #builder: ts.SemanticDiagnosticsBuilderProgram | undefined;
  #version = 0;
  readonly #host: ts.CompilerHost;

  constructor() {
    for (const [path, text] of nodeLibrary().files) this.#texts.set(path, text);
    const directories = () => {
      const set = new Set<string>(['/']);
      for (const path of this.#texts.keys()) for (let i = path.indexOf('/', 1); i > 0; i = path.indexOf('/', i + 1)) set.add(path.slice(0, i));
      return set;
    };
    this.#host = {
      // Unchanged files keep their parsed tree, as a watch host keeps them.
      getSourceFile: (name, languageVersion) => {
        const text = this.#texts.get(name);
        if (text === undefined) return undefined;
        const kept = this.#parsed.get(name);
        if (kept?.text === text) return kept.file;
        const file = ts.createSourceFile(name, text, languageVersion);
        // What a watch host sets: the builder compares versions to find the files that changed.
        (file as ts.SourceFile & { version: string }).version = String(++this.#version);
        this.#parsed.set(name, { text, file });
        return file;
      },
      getDefaultLibFileName: (options) => `/${ts.getDefaultLibFileName(options)}`,
      writeFile: () => undefined,
      getCurrentDirectory: () => APP_ROOT,
      getCanonicalFileName: (name) => name,
      useCaseSensitiveFileNames: () => true,
      getNewLine: () => '\n',
      fileExists: (name) => this.#texts.has(name),
      readFile: (name) => this.#texts.get(name),
      directoryExists: (name) => directories().has(name.replace(/\/$/, '') || '/'),
      getDirectories: () => [],
    };
  }

  set(path: string, text: string): void {
    this.#texts.set(`${APP_ROOT}/${path}`, text);
  }

  /** The errors of the last check, said. */
  errors: string[] = [];

  /** Checks the app's files again (only those the change affected, as the builder decides); the number of errors. */
  check(): number {
    const roots = [ASSET_DECLARATIONS_FILE, ...[...this.#texts.keys()].filter((path) => path.startsWith(`${APP_ROOT}/`) && /\.(tsx?)$/.test(path))];
    this.#builder = ts.createSemanticDiagnosticsBuilderProgram(roots, this.#options, this.#host, this.#builder);
    this.errors = [];
    for (const file of this.#builder.getSourceFiles()) {
      if (!file.fileName.startsWith(`${APP_ROOT}/`)) continue;
      for (const d of [...this.#builder.getSyntacticDiagnostics(file), ...this.#builder.getSemanticDiagnostics(file)]) this.errors.push(`${file.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    }
    return this.errors.length;
  }
}

/** The files under `dir`, project-relative. */
function listed(dir: string, root = dir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listed(path, root) : [relative(root, path).split('\\').join('/')];
  });
}

/**
 * esbuild's incremental contexts for the client and the server. `outputs`: making what platform dev
 * makes of each edit, the client minified, both with external source maps and a metafile (its sizes
 * and budgets), the platform's modules and Preact bundled rather than left external; else the plainest
 * bundle (the baseline the goal was written against).
 */
async function bundlers(root: string, outputs = false): Promise<esbuild.BuildContext[]> {
  const common: esbuild.BuildOptions = {
    bundle: true,
    write: false,
    format: 'esm',
    logLevel: 'silent',
    nodePaths: [NODE_MODULES],
    ...(outputs ? { sourcemap: 'external', metafile: true } : {}),
    external: outputs ? [] : ['platform', 'platform/*'],
  };
  const modules = (name: string) => (outputs ? { alias: { [`platform/${name}`]: join(import.meta.dirname, `../src/modules/${name}.ts`) } } : {});
  return [
    await esbuild.context({ ...common, ...modules('client'), entryPoints: [join(root, 'src/client/main.tsx')], platform: 'browser', jsx: 'automatic', jsxImportSource: 'preact', minify: outputs, loader: { '.css': 'css', '.svg': 'dataurl' }, outdir: join(root, '.bench-out') }),
    await esbuild.context({ ...common, ...modules('server'), entryPoints: [join(root, 'src/server/index.ts')], platform: 'neutral', outdir: join(root, '.bench-out') }),
  ];
}

type Kind = 'leaf' | 'server' | 'widely';

/**
 * The bundle of a widely imported body edit alone, in this process: the Bundler's native mode (esbuild
 * reads the project's scripts itself, as `platform dev` bundles) against the plugin's (every module
 * through a callback), each edit bundled by both in turn, on the same analysis.
 */
async function bundleModeRows(root: string, files: number): Promise<Row[]> {
  const library = nodeLibrary();
  const fs = new NodeFileSystem(root);
  const [plugin, native] = [new Bundler(esbuild, library), new Bundler(esbuild, library, { directoryOf, libraryOnDisk: () => libraryOnDisk(library) })];
  const times = { plugin: [] as number[], native: [] as number[], ratios: [] as number[] };
  try {
    for (let n = 0; n <= EDITS + 3; n++) {
      writeFileSync(join(root, WIDELY), widelyText(100 + n));
      const project = (await analyzeProject(fs, { library, typecheck: false })).project!;
      const made: Record<'plugin' | 'native', number> = { plugin: 0, native: 0 };
      for (const [mode, bundler] of [['plugin', plugin], ['native', native]] as const) {
        const at = performance.now();
        const result = await bundler.bundle(project, ['client', 'server']);
        made[mode] = performance.now() - at;
        if (result.diagnostics.some((d) => d.severity === 'error')) throw new Error(`The ${mode} bundle failed: ${JSON.stringify(result.diagnostics).slice(0, 500)}`);
        if (mode === 'native' && result.native?.length !== 2) throw new Error('The native mode fell back to the plugin on an unchanged project.');
      }
      if (n < 2) continue;
      times.plugin.push(made.plugin);
      times.native.push(made.native);
      times.ratios.push(made.native / made.plugin);
    }
  } finally {
    await Promise.all([plugin.dispose(), native.dispose()]);
  }
  return [
    { name: `${files} files, the body of ${WIDELY}: client and server bundled through the plugin, p50 (in this process)`, value: median(times.plugin), unit: 'ms' },
    { name: `${files} files, the body of ${WIDELY}: the same in the native mode (what platform dev does), p50`, value: median(times.native), unit: 'ms' },
    { name: `${files} files, the body of ${WIDELY}: native / plugin, p50 of the ratios`, value: median(times.ratios), unit: 'x' },
  ];
}

export async function devSizeRows(sizes: readonly number[] = SIZES): Promise<Row[]> {
  const rows: Row[] = [];
  for (const size of sizes) {
    const app = generateApp(size);
    const root = mkdtempSync(join(tmpdir(), `platform-bench-dev-${size}-`));
    for (const [path, text] of app.files) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const cli = cliKind();
    const dev = new DevProcess(['dev', '--json', '--port', '0'], root);
    let contexts: esbuild.BuildContext[] = [];
    let sameOutputs: esbuild.BuildContext[] = [];
    try {
      const started = performance.now();
      const first = await dev.next((event) => event.kind === 'preview.ready' || event.kind === 'compile.diagnostic', 0, Number(process.env.BENCH_DEV_START_LIMIT_MS ?? 600_000));
      if (first.kind !== 'preview.ready') throw new Error(`platform dev did not start on the ${size}-file app: ${JSON.stringify(first).slice(0, 2000)}`);
      const start = performance.now() - started;
      // The contract platform dev generated, for the builder (written after the first generation serves; a busy machine may take a while).
      for (let waited = 0; !existsSync(join(root, '.platform/types/app.d.ts')) && waited < 120_000; waited += 50) await new Promise((done) => setTimeout(done, 50));
      // Its files are written one after another: taken once none has changed for a second.
      const written = () => {
        try {
          return listed(join(root, '.platform/types')).map((path) => `${path} ${statSync(join(root, '.platform/types', path)).mtimeMs}`).join('\n');
        } catch {
          return `changing ${performance.now()}`; // a file went (a write's temporary file renamed) while it was listed
        }
      };
      for (let last = '', now = written(); now !== last; last = now, now = (await new Promise((done) => setTimeout(done, 1000)), written()));
      const builder = new WarmBuilder();
      for (const [path, text] of app.files) if (/\.(tsx?|json)$/.test(path)) builder.set(path, text);
      for (const path of listed(join(root, '.platform/types'))) builder.set(`.platform/types/${path}`, readFileSync(join(root, '.platform/types', path), 'utf8'));
      const firstAt = performance.now();
      const firstErrors = builder.check();
      contexts = await bundlers(root);
      sameOutputs = await bundlers(root, true);
      await Promise.all(contexts.map((context) => context.rebuild()));
      await Promise.all(sameOutputs.map((context) => context.rebuild()));
      const baselineStart = performance.now() - firstAt;
      if (firstErrors) throw new Error(`The builder found ${firstErrors} errors in the generated ${size}-file app: the baseline would not check what platform dev checks. ${builder.errors.slice(0, 3).join('; ')}`);

      const texts = new Map(app.files);
      const edit = (kind: Kind, n: number): [string, string] => {
        if (kind === 'widely') return [WIDELY, widelyText(n + 1)];
        if (kind === 'leaf') return [app.leaf, app.files.get(app.leaf)!.replace(/<h2>\{title\} (\d+)(?: v\d+)?<\/h2>/, `<h2>{title} $1 v${n}</h2>`)];
        return [app.server, app.files.get(app.server)!.replace('weight: 1 }', `weight: ${n + 2} }`)];
      };
      const times: Record<Kind, { dev: number[]; baseline: number[]; check: number[]; sameOutputs: number[]; restarted: number; phases: Record<string, number[]> }> = {
        leaf: { dev: [], baseline: [], check: [], sameOutputs: [], restarted: 0, phases: {} },
        server: { dev: [], baseline: [], check: [], sameOutputs: [], restarted: 0, phases: {} },
        widely: { dev: [], baseline: [], check: [], sameOutputs: [], restarted: 0, phases: {} },
      };
      for (let n = 0; n <= EDITS; n++) {
        for (const kind of ['leaf', 'server', 'widely'] as const) {
          const [path, text] = edit(kind, n);
          if (text === texts.get(path)) throw new Error(`The ${kind} edit changed nothing in ${path}.`);
          texts.set(path, text);
          const from = dev.events.length;
          const at = performance.now();
          writeFileSync(join(root, path), text);
          const ready = await dev.next((event) => event.kind === 'compile.ready' || event.kind === 'compile.diagnostic', from, 600_000);
          const served = performance.now() - at;
          if (ready.kind !== 'compile.ready') throw new Error(`platform dev did not serve the ${kind} edit: ${JSON.stringify(ready).slice(0, 2000)}`);
          builder.set(path, text);
          const checking = performance.now();
          const errors = builder.check();
          const checked = performance.now() - checking;
          let bundling = performance.now();
          await Promise.all(contexts.map((context) => context.rebuild()));
          const baseline = checked + performance.now() - bundling;
          bundling = performance.now();
          await Promise.all(sameOutputs.map((context) => context.rebuild()));
          const withOutputs = checked + performance.now() - bundling;
          if (errors) throw new Error(`The builder found ${errors} errors after the ${kind} edit: ${builder.errors.slice(0, 3).join('; ')}`);
          // The first round warms both up (the first edit of a session).
          if (n === 0) continue;
          times[kind].dev.push(served);
          times[kind].baseline.push(baseline);
          times[kind].check.push(checked);
          times[kind].sameOutputs.push(withOutputs);
          if (ready.restarted) times[kind].restarted++;
          for (const [phase, ms] of Object.entries((ready.phases ?? {}) as Record<string, number>)) (times[kind].phases[phase] ??= []).push(ms);
        }
      }
      const files = sourceCount(app);
      rows.push({ name: `${files} files: platform dev, start to preview.ready (${cli}; both cores shared with the bench)`, value: start, unit: 'ms' });
      rows.push({ name: `${files} files: baseline, the builder's first check plus both esbuild contexts' first build`, value: baselineStart, unit: 'ms' });
      const names: Record<Kind, string> = { leaf: 'a leaf client component\'s markup', server: 'a server handler\'s body', widely: `the body of ${WIDELY} (${100} importers)` };
      for (const kind of ['leaf', 'server', 'widely'] as const) {
        const { dev: served, baseline, check, sameOutputs: withOutputs, restarted, phases } = times[kind];
        rows.push({ name: `${files} files, ${names[kind]}: platform dev save to serving p50 (engine restarted ${restarted}/${served.length})`, value: median(served), unit: 'ms' });
        for (const [phase, values] of Object.entries(phases)) rows.push({ name: `  of which compile.ready's ${phase} p50`, value: median(values), unit: 'ms' });
        rows.push({ name: `${files} files, ${names[kind]}: baseline, warm builder + esbuild rebuild p50`, value: median(baseline), unit: 'ms' });
        rows.push({ name: `  of which the builder's check p50`, value: median(check), unit: 'ms' });
        rows.push({ name: `${files} files, ${names[kind]}: platform dev / baseline, p50 of the ratios (goal < 1.5)`, value: median(served.map((value, i) => value / baseline[i]!)), unit: 'x' });
        rows.push({ name: `${files} files, ${names[kind]}: baseline making platform dev's outputs (minified client, source maps, metafile), p50`, value: median(withOutputs), unit: 'ms' });
        rows.push({ name: `${files} files, ${names[kind]}: platform dev / that baseline, p50 of the ratios`, value: median(served.map((value, i) => value / withOutputs[i]!)), unit: 'x' });
      }
      await dev.stop();
      rows.push(...(await bundleModeRows(root, files)));
    } finally {
      await Promise.all([...contexts, ...sameOutputs].map((context) => context.dispose()));
      await dev.stop();
      rmSync(root, { recursive: true, force: true });
    }
  }
  return rows;
}
