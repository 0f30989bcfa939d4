/**
 * The preview's toolbar (issue 17, item 6): Reload starts the app's client again and keeps the
 * runtime's data; device sizes draw the frame at a phone's or a tablet's viewport, centred and scaled
 * down, kept with the layout; "New tab" runs the same preview as the same persona in a page of its
 * own, sandboxed as in the playground and on the playground tab's runtime.
 */
import { expect, test, type Page } from './profile';
import { openTemplate, preview } from './helpers';
import { addTodo, dataView, tableButton } from './share-helpers';

// Each test starts the compiler worker (esbuild-wasm and TypeScript) in a fresh page, on 2 cores.
test.describe.configure({ timeout: 120_000 });

/** The preview frame's own viewport width, read inside it. */
const frameWidth = (page: Page) => preview(page).locator('body').evaluate(() => innerWidth);

test('Reload starts the client again and keeps the data', async ({ page }) => {
  await openTemplate(page);
  await addTodo(page, 'milk');
  const generation = await page.locator('.preview').first().getAttribute('data-generation');
  // What only the client holds: text typed and not sent.
  await preview(page).getByLabel('New todo').fill('half typed');
  await page.getByRole('button', { name: 'Reload the preview as alice' }).click();
  await expect(preview(page).getByLabel('New todo')).toHaveValue('', { timeout: 20_000 });
  await expect(preview(page).getByText('milk', { exact: true })).toBeVisible({ timeout: 20_000 });
  await expect(preview(page).getByText('1 left')).toBeVisible();
  // The same build: nothing was compiled or restarted for it.
  await expect(page.locator('.preview').first()).toHaveAttribute('data-generation', generation!);
});

test('device sizes draw the preview at a phone’s and a tablet’s viewport, centred and scaled to fit, and are kept with the layout', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openTemplate(page);
  await expect(preview(page).getByLabel('New todo')).toBeVisible();
  const sizes = page.getByRole('group', { name: 'Preview size' });
  await expect(sizes.getByRole('button', { name: 'Full' })).toHaveAttribute('aria-pressed', 'true');
  const fullWidth = await frameWidth(page);

  await sizes.getByRole('button', { name: 'Phone 390×844' }).click();
  await expect(page.locator('.preview').first()).toHaveAttribute('data-device', 'phone');
  await expect.poll(() => frameWidth(page), { timeout: 20_000 }).toBe(390);
  const stage = (await page.locator('.preview-stage').first().boundingBox())!;
  const frame = (await page.locator('iframe.preview-frame').first().boundingBox())!;
  // Scaled down to the stage's height (844 px do not fit under 800), keeping the phone's proportions.
  expect(frame.height).toBeLessThanOrEqual(stage.height + 1);
  expect(frame.width / frame.height).toBeCloseTo(390 / 844, 2);
  // Centred.
  expect(Math.abs(frame.x - stage.x - (stage.x + stage.width - frame.x - frame.width))).toBeLessThan(2);
  await page.screenshot({ path: test.info().outputPath('phone.png') });

  await sizes.getByRole('button', { name: 'Tablet 768×1024' }).click();
  await expect.poll(() => frameWidth(page), { timeout: 20_000 }).toBe(768);

  // Kept with the layout: a reload draws the tablet again.
  await page.reload();
  await expect(page.getByRole('group', { name: 'Preview size' }).getByRole('button', { name: 'Tablet 768×1024' })).toHaveAttribute('aria-pressed', 'true', { timeout: 60_000 });
  await expect.poll(() => frameWidth(page), { timeout: 30_000 }).toBe(768);

  await page.getByRole('group', { name: 'Preview size' }).getByRole('button', { name: 'Full' }).click();
  await expect.poll(() => frameWidth(page), { timeout: 20_000 }).toBe(fullWidth);
});

test('New tab runs the same preview as the same persona, sandboxed, on the playground tab’s runtime', async ({ page, context }) => {
  await openTemplate(page);
  await addTodo(page, 'milk');

  const opened = context.waitForEvent('page');
  await page.getByRole('link', { name: 'Open the preview as alice in a new tab' }).click();
  const tab = await opened;
  await expect(tab).toHaveURL(/#\/p\/p_[a-z0-9]+\/preview\/alice$/);
  const frame = tab.frameLocator('iframe.preview-frame');
  await expect(frame.getByText('milk', { exact: true })).toBeVisible({ timeout: 30_000 });
  await tab.screenshot({ path: test.info().outputPath('tab.png') });

  // The same sandbox as in the playground: an opaque origin behind the same attributes, no network.
  await expect(tab.locator('iframe.preview-frame')).toHaveAttribute('sandbox', 'allow-scripts allow-forms');
  expect(await frame.locator('body').evaluate(() => origin)).toBe('null');
  expect(await frame.locator('body').evaluate(async (_, url) => fetch(url).then(() => 'reached', () => 'refused'), tab.url())).toBe('refused');

  // A write in the tab lands in the playground tab's runtime, as alice.
  await frame.getByLabel('New todo').fill('bread');
  await frame.getByRole('button', { name: 'Add' }).click();
  await expect(frame.getByText('bread', { exact: true })).toBeVisible();
  await dataView(page, 'Tables');
  await expect(tableButton(page, 'todos')).toHaveText('todos 2');
  await page.getByRole('button', { name: 'Reload the preview as alice' }).click();
  await expect(preview(page).getByText('bread', { exact: true })).toBeVisible({ timeout: 20_000 });

  // Reloaded, the tab runs the preview again by itself.
  await tab.reload();
  await expect(tab.frameLocator('iframe.preview-frame').getByText('bread', { exact: true })).toBeVisible({ timeout: 30_000 });

  // As bob, the same tab page shows bob's (empty) list: the persona is bound by the trusted side.
  const bob = await context.newPage();
  await bob.goto(tab.url().replace(/\/preview\/alice$/, '/preview/bob'));
  await expect(bob.frameLocator('iframe.preview-frame').getByText('0 left')).toBeVisible({ timeout: 30_000 });
  await expect(bob.frameLocator('iframe.preview-frame').getByText('milk', { exact: true })).toHaveCount(0);
});
