/** Compiler figures in Node: bundling with native esbuild and esbuild-wasm, type checking cold and after an edit. */
import * as esbuild from 'esbuild';
import * as esbuildWasm from 'esbuild-wasm';
import { nodeLibrary } from '../src/adapters/node/library';
import { analyzeProject } from '../src/core/analyze/analyze';
import { openProject } from '../src/core/analyze/project';
import { bundleProject } from '../src/core/build/bundle';
import type { EsbuildApi } from '../src/core/build/esbuild-types';
import { TypeCheckSession } from '../src/core/analyze/typecheck';
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
