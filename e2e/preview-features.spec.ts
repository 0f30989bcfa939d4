import { expect, test } from './profile';
import { afterRebuild, openTemplate, preview, replaceFile } from './helpers';

// Each test starts the compiler worker (esbuild-wasm and TypeScript) in a fresh page, on 2 cores.
test.describe.configure({ timeout: 120_000 });

test("a link into the app downloads what the app answers, as the preview's persona", async ({ page }, testInfo) => {
  await openTemplate(page, 'files');
  await preview(page).locator('input[type="file"]').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello from the preview') });
  const link = preview(page).getByRole('link', { name: 'notes.txt' });
  await expect(link).toBeVisible();
  await link.click();
  // The person's click asks; the playground offers the file in its own UI, and saves it on a yes there.
  const offer = page.getByRole('alertdialog', { name: 'Download from the preview' });
  await expect(offer).toContainText('notes.txt');
  const [download] = await Promise.all([page.waitForEvent('download'), offer.getByRole('button', { name: 'Save' }).click()]);
  expect(download.suggestedFilename()).toBe('notes.txt');
  const stream = await download.createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  expect(Buffer.concat(chunks).toString()).toBe('hello from the preview');
  // The preview did not navigate away from the app.
  await expect(preview(page).getByRole('heading', { name: 'Files' })).toBeVisible();
  await page.getByRole('tab', { name: 'Events' }).click();
  await expect(page.locator('.events li[data-kind="preview.notice"]')).toContainText('Downloaded notes.txt');
  await testInfo.attach('download', { body: await page.screenshot(), contentType: 'image/png' });
});

test('a streamed response reaches the preview chunk by chunk', async ({ page }) => {
  await openTemplate(page, 'endpoints');
  await afterRebuild(page, () => replaceFile(page, 'index.ts', (text) => text.replace('pull(controller) {', 'async pull(controller) {\n          await new Promise((resolve) => setTimeout(resolve, 300));')));
  await preview(page).getByRole('button', { name: 'Stream GET /api/count/20' }).click();
  const output = preview(page).locator('pre');
  // The first numbers show while the stream still runs (20 chunks, 300 ms apart).
  await expect(output).toHaveText(/^1 2\b/, { timeout: 10_000 });
  expect(await output.textContent()).not.toContain('20');
  await expect(output).toHaveText(/ 19 20$/, { timeout: 20_000 });
});

test("the app's public files are served to the preview; links out of the app are not followed", async ({ page }) => {
  await openTemplate(page);
  await afterRebuild(page, () => replaceFile(page, 'main.tsx', (text) => text.replace('<h1>Todos</h1>', '<h1>Todos</h1>\n      <img src="/favicon.svg" alt="logo" width="32" height="32" />\n      <a href="https://example.com/">out</a>')));
  const logo = preview(page).getByRole('img', { name: 'logo' });
  await expect(logo).toHaveAttribute('src', /^blob:/);
  await expect.poll(() => logo.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
  await preview(page).getByRole('link', { name: 'out' }).click();
  await expect(preview(page).getByRole('heading', { name: 'Todos' })).toBeVisible();
  await page.getByRole('tab', { name: 'Events' }).click();
  await expect(page.locator('.events li[data-kind="preview.notice"]')).toContainText('does not follow links out of the app');
});
