/** Compiler figures in Node: bundling with native esbuild and esbuild-wasm, type checking cold and after an edit. */
import * as esbuild from 'esbuild';
import * as esbuildWasm from 'esbuild-wasm';
import { nodeLibrary } from '../src/adapters/node/library';
import { analyzeProject, TypeCheckSession } from '../src/core/analyze';
import { openProject } from '../src/core/project';
import { bundleProject, type EsbuildApi } from '../src/core/bundle';
import { MemoryFileSystem } from '../src/core/fs';
import { checkManifest } from '../src/core/manifest';
import type { BenchProject } from './projects';
import { median, percentile, type Row } from './stats';

const WARM_RUNS = 15;

async function bundleTimes(api: EsbuildApi, project: BenchProject): Promise<{ cold: number; warm: number[] }> {
  const library = nodeLibrary();
  const fs = new MemoryFileSystem(project.files);
  const { manifest } = await checkManifest(fs);
  const opened = await openProject(fs, manifest!);
  let start = performance.now();
  await bundleProject(api, library, opened);
  const cold = performance.now() - start;
  const warm: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    fs.write(project.edit.file, project.edit.apply(project.files[project.edit.file]!, i));
    start = performance.now();
    await bundleProject(api, library, opened);
    warm.push(performance.now() - start);
  }
  return { cold, warm };
}

export async function compilerRows(project: BenchProject): Promise<Row[]> {
  const rows: Row[] = [];
  const native = await bundleTimes(esbuild, project);
  const wasm = await bundleTimes(esbuildWasm, project);
  rows.push({ name: 'bundle, native esbuild, cold', value: native.cold, unit: 'ms' });
  rows.push({ name: 'bundle, native esbuild, warm p50', value: median(native.warm), unit: 'ms' });
  rows.push({ name: 'bundle, esbuild-wasm (Node), cold', value: wasm.cold, unit: 'ms' });
  rows.push({ name: 'bundle, esbuild-wasm (Node), warm p50', value: median(wasm.warm), unit: 'ms' });
  rows.push({ name: 'wasm / native, cold', value: wasm.cold / native.cold, unit: 'x' });
  rows.push({ name: 'wasm / native, warm p50', value: median(wasm.warm) / median(native.warm), unit: 'x' });

  // Type checking: a fresh session (libraries parsed), then one-line edits in a warm session.
  const library = nodeLibrary();
  const session = new TypeCheckSession(library);
  const fs = new MemoryFileSystem(project.files);
  let start = performance.now();
  await analyzeProject(fs, { library, typecheck: session });
  rows.push({ name: 'analysis + type check, cold (new session)', value: performance.now() - start, unit: 'ms' });
  const focus: number[] = [];
  const full: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    fs.write(project.edit.file, project.edit.apply(project.files[project.edit.file]!, i));
    start = performance.now();
    const analysis = await analyzeProject(fs, { library, typecheck: session, focus: project.edit.file, now: () => performance.now() });
    full.push(performance.now() - start);
    focus.push(analysis.timings.focusCheck);
  }
  rows.push({ name: 're-check of the edited file after a one-line edit p50', value: median(focus), unit: 'ms' });
  rows.push({ name: 'whole analysis + type check after the edit p50', value: median(full), unit: 'ms' });
  rows.push({ name: 'whole analysis + type check after the edit p95', value: percentile(full, 95), unit: 'ms' });
  return rows;
}

export async function stopCompilers(): Promise<void> {
  await esbuildWasm.stop();
  await esbuild.stop();
}

/**
 * The quick preview's bundle (src/core/quick/quick-bundle.ts) of generated projects at two sizes, each
 * in a new Node process so that its first run is as cold as the playground's worker's, against
 * esbuild-wasm's and native esbuild's preview bundle of the same files made in that process (issue 31:
 * a link's first preview made without esbuild-wasm).
 */
export async function quickBundleRows(sizes: readonly number[]): Promise<Row[]> {
  const { spawnSync } = await import('node:child_process');
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { quickLibrary } = await import('../src/core/quick');
  // The Library's modules, made here as the playground makes them at build time: the child's Sucrase runs first on the app.
  const dir = mkdtempSync(join(tmpdir(), 'bench-quick-'));
  const linked = join(dir, 'library.json');
  writeFileSync(linked, JSON.stringify(quickLibrary(nodeLibrary())));
  const rows: Row[] = [];
  try {
    for (const files of sizes) rows.push(...quickRowsOf(files, spawnSync(process.execPath, ['--import', 'tsx', new URL('./quick-bundle-child.ts', import.meta.url).pathname, String(files), linked], { encoding: 'utf8' })));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

function quickRowsOf(files: number, run: { status: number | null; stdout: string; stderr: string }): Row[] {
  if (run.status !== 0) throw new Error(`the quick bundle bench failed: ${run.stderr}`);
  const { quick, quickAgain, wasm, native } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { quick: number; quickAgain: number; wasm: number; native: number };
  return [
    { name: `${files} files: quick preview bundle, cold (a new process)`, value: quick, unit: 'ms' },
    { name: `${files} files: quick preview bundle, again`, value: quickAgain, unit: 'ms' },
    { name: `${files} files: esbuild-wasm preview bundle, cold, in the same process`, value: wasm, unit: 'ms' },
    { name: `${files} files: native esbuild preview bundle, cold, in the same process`, value: native, unit: 'ms' },
    { name: `${files} files: quick cold / esbuild-wasm cold`, value: quick / wasm, unit: 'x' },
    { name: `${files} files: quick cold / native esbuild cold`, value: quick / native, unit: 'x' },
  ];
}
