/**
 * The playground's durable commit of one small mutation against the size of the database, in headless
 * Chromium on the runtime harness page (harness/runtime.html): a RuntimeHost whose commits go to
 * IndexedDB as the playground's session keeps them (the journal entry appended before the answer, the
 * checkpoint written in the background: src/ui/runtime/durable-log.ts). Each database is filled with
 * rows of 64 KiB, checkpointed, then a one-row mutation is timed from the call to its answer (which
 * waits for its journal entry). The goal (issue 31): 50 MB against 1 MB, ratio < 1.5.
 *
 * Run alone against a served playground: `npx tsx bench/durable-commits.ts http://127.0.0.1:4173/`.
 */
import type { Browser } from '@playwright/test';
import { nodeCompiler } from '../src/adapters/node/compiler';
import { compileProject } from '../src/core/build';
import { MemoryFileSystem } from '../src/core/fs';
import { median, percentile, printTable, type Row } from './stats';

const MANIFEST = {
  format: 'platform.application-source.v0',
  name: 'commit-bench',
  entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' },
  capabilities: ['database'],
  database: { tables: { items: { fields: { title: { type: 'string' } } }, filler: { fields: { body: { type: 'string' } } } } },
};

const SERVER = `import { defineServer, mutation, query } from 'platform/server';
export default defineServer({
  queries: { 'items.count': query({ input: {}, handler: async (ctx) => (await ctx.db.table('items').all()).length }) },
  mutations: {
    'items.add': mutation({ input: { title: 'string' }, handler: async (ctx, input) => ({ id: (await ctx.db.table('items').insert({ title: input.title })).id }) }),
    'filler.add': mutation({
      input: { rows: 'number', size: 'number', seed: 'number' },
      handler: async (ctx, input) => {
        for (let i = 0; i < input.rows; i++) await ctx.db.table('filler').insert({ body: String(input.seed + i).padEnd(input.size, 'x') });
      },
    }),
  },
});
`;

const FILES: Record<string, string> = {
  'app.manifest.json': JSON.stringify(MANIFEST, null, 2),
  'src/server/index.ts': SERVER,
  'src/client/main.tsx': "import { render } from 'preact';\nrender(<p>bench</p>, document.getElementById('app')!);\n",
};

const SIZES_MB = [0, 1, 50];
const ROW_BYTES = 64 * 1024;
/** Rows per filling call: 1 MiB, under the runtime's request and write limits. */
const ROWS_PER_CALL = 16;
const WARM_UP = 5;
const MUTATIONS = 30;
/** Mutations a pause apart: a checkpoint is written in each pause (checkpointDelayMs is 1 s). */
const PAUSED = 6;
const PAUSE_MS = 1600;

interface SizeResult {
  mb: number;
  stored: number;
  times: number[];
  paused: number[];
  checkpointMs: number[];
}

async function measureSize(browser: Browser, url: string, serverCode: string, mb: number): Promise<SizeResult> {
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(new URL('harness/runtime.html', url).href);
    await page.waitForFunction(() => '__runtimeHarness' in globalThis);
    // No named functions inside: the page does not have tsx's __name helper.
    return await page.evaluate(
      async ({ manifest, serverCode, mb, rowBytes, rowsPerCall, warmUp, mutations, paused, pauseMs }) => {
        type Host = {
          start(app: unknown): Promise<void>;
          call(persona: string, kind: string, name: string, input: unknown): Promise<{ status: number }>;
          flush(options?: { checkpoint?: boolean }): Promise<void>;
          committedState?: { checkpoint?: Uint8Array };
        };
        const harness = (globalThis as unknown as { __runtimeHarness: { RuntimeHost: new (o: object) => Host; persist(host: Host, id: string): { log: { settled(): Promise<void> }; checkpoints: number[] } } }).__runtimeHarness;
        const host = new harness.RuntimeHost({ commitDelayMs: 0 });
        const durable = harness.persist(host, `bench-${mb}`);
        await host.start({ manifest, serverCode });
        const calls = Math.round((mb * 1024 * 1024) / (rowBytes * rowsPerCall));
        let failed = 0;
        for (let i = 0; i < calls; i++) if ((await host.call('alice', 'mutation', 'filler.add', { rows: rowsPerCall, size: rowBytes, seed: i * rowsPerCall })).status !== 200) failed++;
        // Everything in one checkpoint, landed, before the measured mutations.
        await host.flush({ checkpoint: true });
        await durable.log.settled();
        const stored = host.committedState?.checkpoint?.length ?? 0;
        const times: number[] = [];
        for (let i = 0; i < warmUp + mutations; i++) {
          const began = performance.now();
          if ((await host.call('alice', 'mutation', 'items.add', { title: `item ${i}` })).status !== 200) failed++;
          if (i >= warmUp) times.push(performance.now() - began);
        }
        const pausedTimes: number[] = [];
        const before = durable.checkpoints.length;
        for (let i = 0; i < paused; i++) {
          await new Promise((resolve) => setTimeout(resolve, pauseMs));
          const began = performance.now();
          if ((await host.call('alice', 'mutation', 'items.add', { title: `paused ${i}` })).status !== 200) failed++;
          pausedTimes.push(performance.now() - began);
        }
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
        await durable.log.settled();
        if (failed > 0) throw new Error(`${failed} calls failed`);
        return { mb, stored, times, paused: pausedTimes, checkpointMs: durable.checkpoints.slice(before) };
      },
      { manifest: MANIFEST, serverCode, mb, rowBytes: ROW_BYTES, rowsPerCall: ROWS_PER_CALL, warmUp: WARM_UP, mutations: MUTATIONS, paused: PAUSED, pauseMs: PAUSE_MS },
    );
  } finally {
    await context.close();
  }
}

export async function durableCommitRows(browser: Browser, url: string): Promise<Row[]> {
  const outcome = await compileProject(new MemoryFileSystem(FILES), nodeCompiler());
  const server = outcome.files?.get('server/index.js');
  if (!server) throw new Error(`The commit bench app did not build: ${JSON.stringify(outcome.diagnostics)}`);
  const serverCode = new TextDecoder().decode(server);
  // The first size measured pays for the browser's first IndexedDB writes and the sandbox's first
  // calls: an empty database once, unmeasured, first.
  await measureSize(browser, url, serverCode, 0);
  const results: SizeResult[] = [];
  for (const mb of SIZES_MB) results.push(await measureSize(browser, url, serverCode, mb));
  const empty = median(results[0]!.times);
  const at = (mb: number) => results.find((r) => r.mb === mb)!;
  const rows: Row[] = [];
  for (const result of results) {
    const name = result.mb === 0 ? 'an empty database' : `a ${result.mb} MB database (${(result.stored / 1024 / 1024).toFixed(1)} MiB file)`;
    rows.push({ name: `durable commit of one small mutation, ${name}, p50 of ${MUTATIONS}`, value: median(result.times), unit: 'ms' });
    rows.push({ name: `  the same, p95`, value: percentile(result.times, 95), unit: 'ms' });
    if (result.mb > 0) rows.push({ name: `  ratio to the same mutation with an empty database`, value: median(result.times) / empty, unit: 'x' });
    rows.push({ name: `  the same, ${PAUSED} mutations ${PAUSE_MS} ms apart (a checkpoint written in each pause), p50`, value: median(result.paused), unit: 'ms' });
    rows.push({ name: `  its background checkpoint (the page's IndexedDB write), p50 of ${result.checkpointMs.length}`, value: median(result.checkpointMs), unit: 'ms' });
  }
  rows.push({ name: 'durable commit, 50 MB against 1 MB, ratio of p50 (goal < 1.5)', value: median(at(50).times) / median(at(1).times), unit: 'x' });
  rows.push({ name: '  the same, mutations a pause apart, ratio of p50 (goal < 1.5)', value: median(at(50).paused) / median(at(1).paused), unit: 'x' });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { chromium } = await import('@playwright/test');
  const url = process.argv[2] ?? 'http://127.0.0.1:4173/';
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
  try {
    printTable('Playground in Chromium: durable commit of one small mutation against database size', await durableCommitRows(browser, url));
  } finally {
    await browser.close();
  }
}
