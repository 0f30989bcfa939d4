/**
 * Durable commits by journal (docs/playground.md, "Persistence"): each mutation's answer waits for its
 * journal entry in IndexedDB, the whole database is checkpointed in the background once writes pause.
 * Here the page is closed abruptly at random moments around a checkpoint being written, round after
 * round, and each reload must hold exactly the todos whose adding was acknowledged.
 */
import { expect, test, type Page } from './profile';
import { nodeCompiler } from '../src/adapters/node/compiler';
import { compileProject } from '../src/core/build';
import { MemoryFileSystem } from '../src/core/fs';
import { openTemplate, preview } from './helpers';

test.describe.configure({ timeout: 300_000 });

const ROUNDS = 5;
const PER_ROUND = 3;

/** How many checkpoints this page has begun and finished writing (SessionData's marks). */
function checkpoints(page: Page): Promise<{ started: number; done: number }> {
  return page.evaluate(() => ({ started: performance.getEntriesByName('platform:checkpoint-start').length, done: performance.getEntriesByName('platform:checkpoint-done').length }));
}

/** The todos the preview lists, by title, in order. */
async function listed(page: Page): Promise<string[]> {
  return preview(page).locator('li').evaluateAll((items) => items.map((li) => li.textContent ?? ''));
}

/** Adds a todo through the preview and waits for its acknowledgement (the form clears once the mutation answered). */
async function addAcknowledged(page: Page, title: string): Promise<void> {
  const input = preview(page).getByLabel('New todo');
  await input.fill(title);
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(input).toHaveValue('', { timeout: 30_000 });
}

test('a page closed abruptly while a checkpoint is written, at random moments, reloads with exactly the acknowledged todos', async ({ browser }) => {
  const context = await browser.newContext();
  let page = await context.newPage();
  await openTemplate(page);
  const url = page.url();
  const acknowledged: string[] = [];
  const moments: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round > 0) {
      page = await context.newPage();
      await page.goto(url);
      await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
      await expect(preview(page).getByRole('heading', { name: 'Todos' })).toBeVisible({ timeout: 60_000 });
      // Exactly what was acknowledged before the crash: nothing lost, nothing made up.
      await expect.poll(async () => (await listed(page)).filter((text) => /^r\d+-\d+/.test(text)).length, { timeout: 30_000 }).toBe(acknowledged.length);
      const texts = await listed(page);
      for (const title of acknowledged) expect(texts.some((text) => text.startsWith(title))).toBe(true);
    }
    const before = await checkpoints(page);
    for (let i = 0; i < PER_ROUND; i++) {
      const title = `r${round}-${i}`;
      await addAcknowledged(page, title);
      acknowledged.push(title);
    }
    // The checkpoint starts once writes pause (1 s); close the page at a random moment from just
    // before it to while it is written (its IndexedDB transaction in flight) or just after.
    const delay = Math.floor(Math.random() * 40);
    await expect.poll(async () => (await checkpoints(page)).started, { timeout: 30_000, intervals: [5] }).toBeGreaterThan(before.started);
    if (delay > 0) await page.waitForTimeout(delay);
    const at = await checkpoints(page);
    moments.push(`round ${round}: +${delay} ms, checkpoint ${at.done > before.done ? 'written' : 'in flight'}`);
    // Closed abruptly: no beforeunload, no pagehide work waited for; what IndexedDB had not committed is lost.
    await page.close({ runBeforeUnload: false });
  }
  test.info().annotations.push({ type: 'close moments', description: moments.join('; ') });
  console.log(`close moments: ${moments.join('; ')}`);

  // A last reload, left alone: the whole list, and a write after it still works.
  page = await context.newPage();
  await page.goto(url);
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
  await expect.poll(async () => (await listed(page)).filter((text) => /^r\d+-\d+/.test(text)).length, { timeout: 30_000 }).toBe(acknowledged.length);
  await addAcknowledged(page, 'after the crashes');
  await expect(preview(page).getByText('after the crashes')).toBeVisible();
  await context.close();
});

const MANIFEST = {
  format: 'platform.application-source.v0',
  name: 'crash-probe',
  entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' },
  capabilities: ['database'],
  database: { tables: { items: { fields: { title: { type: 'string' } } }, filler: { fields: { body: { type: 'string' } } } } },
};
const SERVER = `import { defineServer, mutation, query } from 'platform/server';
export default defineServer({
  queries: { 'items.titles': query({ input: {}, handler: async (ctx) => (await ctx.db.table('items').all()).map((i) => i.title) }), 'filler.count': query({ input: {}, handler: async (ctx) => (await ctx.db.table('filler').all()).length }) },
  mutations: {
    'items.add': mutation({ input: { title: 'string' }, handler: async (ctx, input) => void (await ctx.db.table('items').insert({ title: input.title })) }),
    'filler.add': mutation({ input: { rows: 'number' }, handler: async (ctx, input) => { for (let i = 0; i < input.rows; i++) await ctx.db.table('filler').insert({ body: String(i).padEnd(65536, 'x') }); } }),
  },
});
`;

type HarnessHost = { start(app: unknown): Promise<void>; call(persona: string, kind: string, name: string, input: unknown): Promise<{ status: number; result?: unknown }> };
type CrashWindow = typeof globalThis & {
  __runtimeHarness: { RuntimeHost: new (o: object) => HarnessHost; persist(host: HarnessHost, id: string, loaded?: unknown): { started: number; checkpoints: number[] }; load(id: string): Promise<unknown> };
  host: HarnessHost;
  durable: { started: number; checkpoints: number[] };
};

test('with 16 MB of data, the page closed while a checkpoint is in flight: the reload (checkpoint + journal) holds exactly the acknowledged writes', async ({ browser }) => {
  const outcome = await compileProject(new MemoryFileSystem({ 'app.manifest.json': JSON.stringify(MANIFEST), 'src/server/index.ts': SERVER, 'src/client/main.tsx': "import { render } from 'preact';\nrender(<p>x</p>, document.getElementById('app')!);\n" }), nodeCompiler());
  expect(outcome.diagnostics).toEqual([]);
  const app = { manifest: MANIFEST, serverCode: new TextDecoder().decode(outcome.files!.get('server/index.js')) };
  const context = await browser.newContext();
  const acknowledged: string[] = [];
  const moments: string[] = [];
  /** Opens the harness on what IndexedDB holds, checks it is exactly what was acknowledged, and keeps it durable from there. */
  async function reopen(): Promise<Page> {
    const page = await context.newPage();
    await page.goto('/harness/runtime.html');
    await page.waitForFunction(() => '__runtimeHarness' in globalThis);
    const seen = await page.evaluate(async (app) => {
      const w = globalThis as CrashWindow;
      const loaded = await w.__runtimeHarness.load('crash-probe');
      w.host = new w.__runtimeHarness.RuntimeHost({ commitDelayMs: 0 });
      w.durable = w.__runtimeHarness.persist(w.host, 'crash-probe', loaded);
      await w.host.start({ ...app, state: loaded });
      return { titles: (await w.host.call('alice', 'query', 'items.titles', {})).result as string[], filler: (await w.host.call('alice', 'query', 'filler.count', {})).result as number };
    }, app);
    expect(seen.titles).toEqual(acknowledged);
    expect(seen.filler).toBe(acknowledged.length > 0 ? 256 : seen.filler);
    return page;
  }
  let page = await reopen();
  // 16 MB of rows (a checkpoint of that size takes a while to write), landed first.
  await page.evaluate(async () => {
    const w = globalThis as CrashWindow;
    for (let i = 0; i < 16; i++) if ((await w.host.call('alice', 'mutation', 'filler.add', { rows: 16 })).status !== 200) throw new Error('filler failed');
  });
  for (let round = 0; round < 4; round++) {
    const titles = Array.from({ length: 3 }, (_, i) => `r${round}-${i}`);
    const before = await page.evaluate(async (titles) => {
      const w = globalThis as CrashWindow;
      for (const title of titles) if ((await w.host.call('alice', 'mutation', 'items.add', { title })).status !== 200) throw new Error('add failed');
      return w.durable.started;
    }, titles);
    acknowledged.push(...titles);
    // The checkpoint begins once writes pause (1 s); the page goes at a random moment of its write.
    await expect.poll(() => page.evaluate(() => (globalThis as CrashWindow).durable.started), { timeout: 30_000, intervals: [5] }).toBeGreaterThan(before);
    const delay = Math.floor(Math.random() * 250);
    if (delay > 0) await page.waitForTimeout(delay);
    const written = await page.evaluate(() => (globalThis as CrashWindow).durable.checkpoints.length);
    moments.push(`round ${round}: +${delay} ms, ${written} checkpoints written of ${before + 1}`);
    await page.close({ runBeforeUnload: false });
    page = await reopen();
  }
  console.log(`close moments (harness, 16 MB): ${moments.join('; ')}`);
  await context.close();
});
