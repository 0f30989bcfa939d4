/**
 * Figures measured in headless Chromium against the built playground: the compiler worker's start-up,
 * its first build, and warm rebuilds after one-line edits.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import type { BenchProject } from './projects';
import { median, percentile, type Row } from './stats';

const ROOT = join(import.meta.dirname, '..');
const PORT = 4179;
const EDITS = 15;
/** Edits made before the measured ones, per project (see browserCompilerRows). */
const WARM_UP_EDITS = 5;
/** Edits that warm the worker up before any project is measured (see workerWarmUpRows). */
const WORKER_WARM_UP_EDITS = 40;

interface Timings {
  analyze: number;
  focusCheck: number;
  typecheck: number;
  bundle: number;
  total: number;
}

export interface BrowserSession {
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

async function waitForServer(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer`);
}

/** Builds the playground, serves it with `vite preview` and opens it in Chromium. */
export async function openPlayground(): Promise<BrowserSession & { startup: Record<string, number>; url: string }> {
  const build = spawnSync('npx', ['vite', 'build', '--logLevel', 'error'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('vite build failed');
  const server: ChildProcess = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(PORT), '--strictPort'], { cwd: ROOT, stdio: 'ignore', detached: true });
  const url = `http://127.0.0.1:${PORT}/`;
  await waitForServer(url);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
  const page = await browser.newPage();
  await page.goto(url);
  const startup = await page.evaluate(async () => (globalThis as unknown as { __platformCompiler: { ready: Promise<Record<string, number>> } }).__platformCompiler.ready);
  return {
    browser,
    page,
    startup,
    url,
    async close() {
      await browser.close();
      if (server.pid) process.kill(-server.pid);
    },
  };
}

async function compile(page: Page, files: Record<string, string>, mode: 'preview' | 'build', focus?: string): Promise<{ timings: Timings; id?: string; built: boolean }> {
  return page.evaluate(
    async ([project, how, file]) => {
      const compiler = (globalThis as unknown as { __platformCompiler: { compile(f: unknown, m: string, focus?: string): Promise<{ timings: Timings; artifactId?: string; files?: object }> } }).__platformCompiler;
      const result = await compiler.compile(project, how, file);
      return { timings: result.timings, id: result.artifactId, built: result.files !== undefined };
    },
    [files, mode, focus] as const,
  );
}

/**
 * The worker's own warm-up, before the per-project rows: the first edits a worker ever sees run while
 * TypeScript's checker and esbuild's wasm tier up, which took whichever project was measured first from
 * about 100 to about 200 ms (the projects measured in reverse order: the fixture 192 ms p50 first, 87 ms
 * last). Reported here, so the rows after it are the projects' rebuilds.
 */
export async function workerWarmUpRows(page: Page, project: BenchProject): Promise<Row[]> {
  await compile(page, project.files, 'build');
  const goal: number[] = [];
  for (let i = 0; i < WORKER_WARM_UP_EDITS; i++) {
    const { timings } = await compile(page, { ...project.files, [project.edit.file]: project.edit.apply(project.files[project.edit.file]!, i) }, 'preview', project.edit.file);
    goal.push(timings.bundle + timings.focusCheck);
  }
  return [
    { name: `worker warm-up: rebuild + re-check of the first ${WORKER_WARM_UP_EDITS} edits it sees (${project.name}) p50`, value: median(goal), unit: 'ms' },
    { name: `worker warm-up: the same, the first 5 p50`, value: median(goal.slice(0, 5)), unit: 'ms' },
    { name: `worker warm-up: the same, the last 5 p50`, value: median(goal.slice(-5)), unit: 'ms' },
  ];
}

export async function browserCompilerRows(page: Page, project: BenchProject): Promise<Row[]> {
  const first = await compile(page, project.files, 'build');
  if (!first.id) throw new Error(`${project.name} did not build in the browser`);
  const edited = (i: number) => ({ ...project.files, [project.edit.file]: project.edit.apply(project.files[project.edit.file]!, i) });
  // A few edits first, unmeasured: this project's own first rebuilds (its files parsed, its types made).
  // The worker's warm-up comes before every project (workerWarmUpRows).
  for (let i = 0; i < WARM_UP_EDITS; i++) await compile(page, edited(EDITS + i), 'preview', project.edit.file);
  const preview: Timings[] = [];
  for (let i = 0; i < EDITS; i++) {
    const result = await compile(page, edited(i), 'preview', project.edit.file);
    if (!result.built) throw new Error(`${project.name} did not rebuild in the browser`);
    preview.push(result.timings);
  }
  const artifact: Timings[] = [];
  for (let i = 0; i < EDITS; i++) artifact.push((await compile(page, edited(i + 1), 'build', project.edit.file)).timings);
  const goal = preview.map((t) => t.bundle + t.focusCheck);
  return [
    { name: 'worker: first build of the project (cold) total', value: first.timings.total, unit: 'ms' },
    { name: 'worker: warm preview rebuild (client + server, esbuild-wasm) p50', value: median(preview.map((t) => t.bundle)), unit: 'ms' },
    { name: 'worker: re-check of the edited file p50', value: median(preview.map((t) => t.focusCheck)), unit: 'ms' },
    { name: 'worker: warm rebuild + re-check of edited file p50 (goal < 150)', value: median(goal), unit: 'ms' },
    { name: 'worker: warm rebuild + re-check of edited file p95', value: percentile(goal, 95), unit: 'ms' },
    { name: 'worker: edit to preview bundles, every file checked, p50', value: median(preview.map((t) => t.total)), unit: 'ms' },
    { name: 'worker: edit to verified artifact (all bundles) p50', value: median(artifact.map((t) => t.total)), unit: 'ms' },
  ];
}
