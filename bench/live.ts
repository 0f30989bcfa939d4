/**
 * Live updates, a mutation in one page to the other page's re-render, measured in the pages: page A
 * notes the time and starts a mutation; page B's MutationObserver notes when the new row is on screen.
 * Hosted: two Chromium pages (two guests) on a deployed app's preview origin, through the control
 * plane to the app's workerd engine on loopback. Playground: alice's and bob's previews of the
 * team-board template side by side. Both clocks are `performance.timeOrigin + performance.now()` of
 * documents in the same browser.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Frame, type Page } from '@playwright/test';
import { build, databaseApp, deployBody } from '../src/testing/control-plane-apps';
import { startControlPlane } from '../src/control-plane/main';
import { signIn } from '../src/testing/control-plane';
import { openPlayground } from './browser';
import { median, percentile, type Row } from './stats';

const WARMUP = 5;
const RUNS = 40;
const GOAL_MS = 50;

const SERVER = `import { defineServer, mutation, query } from 'platform/server';
export default defineServer({
  queries: { 'notes.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('notes').all()).map((note) => note.text) }) },
  mutations: { 'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => { await ctx.db.table('notes').insert({ text: input.text }); } }) },
});
`;

const CLIENT = `import { render } from 'preact';
import { mutation, useQuery } from 'platform/client';

function Notes() {
  const notes = useQuery('notes.list', {});
  return <ul>{notes.data?.map((text) => <li key={text}>{text}</li>)}</ul>;
}

(globalThis as unknown as { __add(text: string): Promise<void> }).__add = (text) => mutation('notes.add', { text });
render(<Notes />, document.getElementById('app')!);
`;

function notesApp(): Record<string, string> {
  return databaseApp({ name: 'live-bench', tables: { notes: { text: 'string' } }, server: SERVER, budgets: { liveConnections: 4, queryRows: 10000 }, client: CLIENT });
}

type Target = Page | Frame;

/** Page B notes when each `mark-…` text first shows. */
async function watchMarks(target: Target): Promise<void> {
  await target.evaluate(() => {
    const seen = new Map<string, number>();
    (globalThis as unknown as { __seen: Map<string, number> }).__seen = seen;
    // No named function in here: tsx would wrap it in a helper the page does not have.
    new MutationObserver(() => {
      const now = performance.timeOrigin + performance.now();
      for (const element of document.querySelectorAll('li, article span')) {
        const text = element.textContent ?? '';
        if (text.startsWith('mark-') && !seen.has(text)) seen.set(text, now);
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

async function seenAt(target: Target, mark: string): Promise<number> {
  await target.waitForFunction((text) => (globalThis as unknown as { __seen: Map<string, number> }).__seen.has(text), mark, { timeout: 30_000, polling: 5 });
  return target.evaluate((text) => (globalThis as unknown as { __seen: Map<string, number> }).__seen.get(text)!, mark);
}

/** Runs `mutate` (which returns the time it started, in page A) and waits for page B to show the mark; returns the latencies after the warm-up. */
async function measure(viewer: Target, mutate: (mark: string) => Promise<number>, label: string): Promise<number[]> {
  await watchMarks(viewer);
  const times: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const mark = `mark-${label}-${i}`;
    const started = await mutate(mark);
    const shown = await seenAt(viewer, mark);
    if (i >= WARMUP) times.push(shown - started);
  }
  return times;
}

/** Page A's own mutation, awaited: what part of a live update the write itself is. */
async function ownMutationTimes(page: Page): Promise<number[]> {
  return page.evaluate(async (runs) => {
    const add = (globalThis as unknown as { __add(text: string): Promise<void> }).__add;
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const at = performance.now();
      await add(`own-${i}`);
      times.push(performance.now() - at);
    }
    return times;
  }, RUNS);
}

async function hostedTimes(browser: Browser): Promise<{ live: number[]; own: number[] }> {
  const work = mkdtempSync(join(tmpdir(), 'platform-bench-live-'));
  const started = await startControlPlane({ dataDir: join(work, 'data'), port: 0 });
  try {
    const token = await signIn(started.plane, 'bench');
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = (await (await fetch(`${started.url}/v0/apps`, { method: 'POST', headers, body: JSON.stringify({ name: 'live-bench' }) })).json()) as { app: { id: string; urls: { preview: string } } };
    const deployed = await fetch(`${started.url}/v0/apps/${created.app.id}/deployments`, { method: 'POST', headers, body: JSON.stringify(deployBody(await build(notesApp()))) });
    if (deployed.status !== 201) throw new Error(`deploy failed: ${await deployed.text()}`);
    // Two visitors: separate contexts, so separate guest cookies.
    const [writer, viewer] = await Promise.all([browser.newContext(), browser.newContext()]);
    try {
      const a = await writer.newPage();
      const b = await viewer.newPage();
      await Promise.all([a.goto(created.app.urls.preview), b.goto(created.app.urls.preview)]);
      await Promise.all([a.locator('ul').waitFor({ state: 'attached' }), b.locator('ul').waitFor({ state: 'attached' })]);
      const live = await measure(
        b,
        (mark) =>
          a.evaluate((text) => {
            const at = performance.timeOrigin + performance.now();
            void (globalThis as unknown as { __add(text: string): Promise<void> }).__add(text);
            return at;
          }, mark),
        'hosted',
      );
      return { live, own: await ownMutationTimes(a) };
    } finally {
      await Promise.all([writer.close(), viewer.close()]);
    }
  } finally {
    await started.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

async function previewFrame(page: Page, index: number): Promise<Frame> {
  const frame = await (await page.locator('iframe.preview-frame').nth(index).elementHandle())!.contentFrame();
  if (!frame) throw new Error(`No preview frame ${index}`);
  return frame;
}

async function playgroundTimes(browser: Browser, url: string): Promise<number[]> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.locator('[data-template="team-board"]').click();
    await page.getByLabel('split').check();
    const frames = page.frameLocator('iframe.preview-frame');
    await frames.nth(0).getByLabel('New card').waitFor({ timeout: 60_000 });
    await frames.nth(1).getByLabel('New card').waitFor({ timeout: 60_000 });
    const alice = await previewFrame(page, 0);
    const bob = await previewFrame(page, 1);
    return await measure(
      bob,
      (mark) =>
        alice.evaluate(async (text) => {
          const input = document.querySelector<HTMLInputElement>('input[aria-label="New card"]')!;
          input.value = text;
          input.dispatchEvent(new Event('input', { bubbles: true }));
          // Preact renders the input's state before the submit reads it.
          await new Promise((resolve) => setTimeout(resolve, 0));
          const at = performance.timeOrigin + performance.now();
          input.form!.querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
          return at;
        }, mark),
      'playground',
    );
  } finally {
    await context.close();
  }
}

function rows(where: string, times: number[]): Row[] {
  return [
    { name: `live update, a mutation in one page to the other page's re-render, ${where}, p50 of ${times.length} (goal < ${GOAL_MS})`, value: median(times), unit: 'ms' },
    { name: `live update, ${where}, p95`, value: percentile(times, 95), unit: 'ms' },
  ];
}

/**
 * The live-update rows: hosted (its own control plane), then the playground, built and served
 * (bench/browser.ts), or the one already served at `playgroundUrl`.
 */
export async function liveRows(options: { playgroundUrl?: string } = {}): Promise<Row[]> {
  const out: Row[] = [];
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
  try {
    const hosted = await hostedTimes(browser);
    out.push(...rows('hosted (workerd, loopback)', hosted.live));
    out.push({ name: `  of which at most: the writer's own mutation round trip, hosted, p50 of ${hosted.own.length}`, value: median(hosted.own), unit: 'ms' });
    if (options.playgroundUrl) out.push(...rows('playground (two previews)', await playgroundTimes(browser, options.playgroundUrl)));
  } finally {
    await browser.close();
  }
  if (options.playgroundUrl) return out;
  const playground = await openPlayground();
  try {
    out.push(...rows('playground (two previews)', await playgroundTimes(playground.browser, playground.url)));
  } finally {
    await playground.close();
  }
  return out;
}
