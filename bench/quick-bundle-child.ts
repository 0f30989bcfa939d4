/**
 * One measurement of bench/compiler.ts's `quickBundleRows`, in a process of its own: the quick preview
 * bundle of a generated project, cold (the Library's modules made by the parent, as the playground
 * makes them at build time) and again, then esbuild-wasm's and native esbuild's preview bundles of the same
 * files. Prints one JSON line.
 */
import * as esbuild from 'esbuild';
import * as esbuildWasm from 'esbuild-wasm';
import { nodeLibrary } from '../src/adapters/node/library';
import { openProject } from '../src/core/project';
import { bundleProject } from '../src/core/bundle';
import { readFileSync } from 'node:fs';
import { quickBundle, type QuickLibrary } from '../src/core/quick';
import { MemoryFileSystem } from '../src/core/fs';
import { checkManifest } from '../src/core/manifest';
import { generatedProject } from './generated-project';

const files = generatedProject(Number(process.argv[2]));
const library = nodeLibrary();
// The Library's modules as the playground has them, made by the parent: Sucrase has not run in this process.
const linked = JSON.parse(readFileSync(process.argv[3]!, 'utf8')) as QuickLibrary;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

const quick = await timed(async () => {
  const made = await quickBundle(files, linked);
  if (!made.ok) throw new Error(made.reason);
});
const quickAgain = await timed(() => quickBundle(files, linked));
const fs = new MemoryFileSystem(files);
const opened = await openProject(fs, (await checkManifest(fs)).manifest!);
const wasm = await timed(() => bundleProject(esbuildWasm, library, opened, ['client', 'server']));
const native = await timed(() => bundleProject(esbuild, library, opened, ['client', 'server']));
console.log(JSON.stringify({ quick, quickAgain, wasm, native }));
