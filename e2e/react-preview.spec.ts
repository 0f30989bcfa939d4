/**
 * The preview's React client after an edit: React from the bundler worker's vendor script, the app's
 * bundle after it in the same client/app.js (src/core/bundle/bundle.ts, `preview`). The edit shows, the
 * app still works through React and platform/client, and React is the one the vendor script set up.
 */
import { expect, test } from './profile';
import { afterRebuild, openTemplate, preview, replaceFile } from './helpers';

test('a client edit in the React template reaches the preview, which still renders and adds a todo', async ({ page }, testInfo) => {
  await openTemplate(page, 'todo-react');
  await expect(preview(page).getByRole('heading', { name: 'Todos' })).toBeVisible();
  await afterRebuild(page, () => replaceFile(page, 'main.tsx', (text) => text.replace('<h1>Todos</h1>', '<h1>Todos, edited</h1>')));
  await expect(preview(page).getByRole('heading', { name: 'Todos, edited' })).toBeVisible();
  // The preview's client is the vendor script then the app: React came from the vendor's global.
  await expect.poll(() => preview(page).locator('#app').evaluate(() => typeof (globalThis as Record<string, unknown>).__platformPreviewVendor)).toBe('object');
  await expect.poll(() => preview(page).locator('#app').evaluate((el) => Object.keys(el).some((key) => key.startsWith('__reactContainer')))).toBe(true);
  await expect(preview(page).getByText('0 left')).toBeVisible();
  await preview(page).getByLabel('New todo').fill('milk');
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText('milk')).toBeVisible();
  await expect(preview(page).getByText('1 left')).toBeVisible();
  // The frame kept for the next build has run the vendor script already (before that build is known).
  const spare = page.frameLocator('iframe.preview-frame-spare');
  await expect.poll(() => spare.locator('#app').evaluate(() => typeof (globalThis as Record<string, unknown>).__platformPreviewVendor), { timeout: 10_000 }).toBe('object');
  // A second edit: it starts there, with the app's part of the client only; the preview updates again.
  await afterRebuild(page, () => replaceFile(page, 'main.tsx', (text) => text.replace('<h1>Todos, edited</h1>', '<h1>Todos, edited twice</h1>')));
  await expect(preview(page).getByRole('heading', { name: 'Todos, edited twice' })).toBeVisible();
  await expect(preview(page).getByText('milk')).toBeVisible();
  await expect.poll(() => preview(page).locator('#app').evaluate((el) => Object.keys(el).some((key) => key.startsWith('__reactContainer')))).toBe(true);
  const shot = await page.screenshot();
  await testInfo.attach('react preview after an edit', { body: shot, contentType: 'image/png' });
  if (process.env.REACT_PREVIEW_SCREENSHOT) await page.screenshot({ path: process.env.REACT_PREVIEW_SCREENSHOT });
});

test("a crash in a React app's client, started after the vendor script ran ahead, shows the app's own file and line", async ({ page }) => {
  await openTemplate(page, 'todo-react');
  await expect(preview(page).getByRole('heading', { name: 'Todos' })).toBeVisible();
  // A first edit: its frame's spare runs the vendor script ahead of the second.
  await afterRebuild(page, () => replaceFile(page, 'main.tsx', (text) => text.replace('<h1>Todos</h1>', '<h1>Todos, edited</h1>')));
  await expect(preview(page).getByRole('heading', { name: 'Todos, edited' })).toBeVisible();
  const spare = page.frameLocator('iframe.preview-frame-spare');
  await expect.poll(() => spare.locator('#app').evaluate(() => typeof (globalThis as Record<string, unknown>).__platformPreviewVendor), { timeout: 10_000 }).toBe('object');
  let line = 0;
  await afterRebuild(page, () =>
    replaceFile(page, 'main.tsx', (text) => {
      const lines = text.split('\n');
      const at = lines.findIndex((l) => l.includes('<h1>Todos, edited</h1>'));
      // The component's return: a throw on the line before it.
      const returns = lines.slice(0, at).map((l) => l.trim().startsWith('return (')).lastIndexOf(true);
      lines.splice(returns, 0, "  if (Date.now() > 0) throw new Error('thrown after the vendor ran ahead');");
      line = returns + 1;
      return lines.join('\n');
    }),
  );
  const overlay = page.getByRole('alert', { name: 'The preview as alice crashed' });
  await expect(overlay).toContainText('Error: thrown after the vendor ran ahead');
  await expect(overlay.getByRole('button', { name: new RegExp(`^src/client/main\\.tsx:${line}:\\d+$`) })).toBeVisible();
});
