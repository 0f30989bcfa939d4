/**
 * Presenter mode (issue 33, item 2): for teaching from a projector, one keystroke (Shift+Alt+P, or the
 * toolbar's Present button) gives larger type in the editor, a larger preview and no chrome (the page's
 * header, the file tree, the bottom panel, the toolbar's other controls); the same keystroke, or Exit,
 * puts everything back as it was.
 */
import { expect, test, type Page, type TestInfo } from './profile';
import { openTemplate, preview } from './helpers';

test.describe.configure({ timeout: 120_000 });

const fontPx = (page: Page) => page.locator('.cm-content').evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
const widthOf = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())?.width ?? 0;

async function shot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const body = await page.screenshot({ path: testInfo.outputPath(`${name}.png`) });
  await testInfo.attach(name, { body, contentType: 'image/png' });
}

test('Shift+Alt+P presents (larger type, larger preview, no chrome) and the same key or Exit puts it all back', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await openTemplate(page);
  await expect(preview(page).getByLabel('New todo')).toBeVisible({ timeout: 30_000 });
  await page.getByRole('treeitem', { name: 'main.tsx' }).click();
  const before = { font: await fontPx(page), preview: await widthOf(page, 'iframe.preview-frame') };
  await expect(page.getByTestId('bottom-panel')).toBeVisible();

  // From the editor: the keystroke works where a presenter types.
  // Near its start: a click in the middle of a long line's box would scroll the editor sideways first.
  await page.locator('.cm-content').click({ position: { x: 60, y: 12 } });
  await page.keyboard.press('Shift+Alt+KeyP');
  await expect(page.locator('.playground')).toHaveClass(/\bpresenting\b/);
  await expect(page.locator('header.topbar')).toBeHidden();
  await expect(page.getByRole('tree')).toBeHidden();
  await expect(page.getByTestId('bottom-panel')).toBeHidden();
  await expect(page.getByRole('button', { name: 'Share…' })).toBeHidden();
  await expect.poll(() => fontPx(page)).toBeGreaterThanOrEqual(before.font * 1.4);
  await expect.poll(() => widthOf(page, 'iframe.preview-frame')).toBeGreaterThan(before.preview * 1.2);
  // The app still works as the audience watches it.
  await preview(page).getByLabel('New todo').fill('shown on the projector');
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText('shown on the projector', { exact: true })).toBeVisible();
  await shot(page, testInfo, 'presenting-light');

  // The same keystroke from the page leaves it.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('Shift+Alt+KeyP');
  await expect(page.locator('.playground')).not.toHaveClass(/\bpresenting\b/);
  await expect(page.locator('header.topbar')).toBeVisible();
  await expect(page.getByRole('tree')).toBeVisible();
  await expect(page.getByTestId('bottom-panel')).toBeVisible();
  await expect.poll(() => fontPx(page)).toBe(before.font);

  // The toolbar's button enters, Exit leaves; in the dark theme too.
  await page.getByRole('button', { name: 'Dark theme' }).click();
  await page.getByRole('button', { name: 'Present' }).click();
  await expect(page.locator('.playground')).toHaveClass(/\bpresenting\b/);
  await shot(page, testInfo, 'presenting-dark');
  await page.getByRole('button', { name: 'Exit presenter mode' }).click();
  await expect(page.locator('.playground')).not.toHaveClass(/\bpresenting\b/);
  await expect(page.getByRole('button', { name: 'Present' })).toBeFocused();
});
