/**
 * Durable commits by journal (docs/playground.md, "Persistence"): each mutation's answer waits for its
 * journal entry in IndexedDB, the whole database is checkpointed in the background once writes pause.
 * Here the page is closed abruptly at random moments around a checkpoint being written, round after
 * round, and each reload must hold exactly the todos whose adding was acknowledged.
 */
import { expect, test, type Page } from '@playwright/test';
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
