/**
 * axe-core over the playground's views (the start page and the workspace with a template open, each in
 * the light and the dark theme, the docs served under /docs/, the bottom panel's tabs, the Share popover
 * and the embed): a serious or critical violation fails the test, named with its rule, its elements
 * and axe's own summary of the fix.
 */
import { expect, test } from '@playwright/test';
import { openTemplate, violations } from './helpers';

for (const theme of ['light', 'dark'] as const) {
  test(`the start page in the ${theme} theme has no serious or critical accessibility violation`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: theme });
    await page.goto('/');
    await expect(page.locator('[data-template="todo"]')).toBeVisible();
    expect(await violations(page)).toEqual([]);
  });
}

test('the docs the start page links to have no serious or critical accessibility violation', async ({ page }) => {
  const found: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    for (const path of ['/docs/', '/docs/playground.html']) {
      await page.goto(path);
      await expect(page.getByRole('link', { name: 'Back to the playground' })).toBeVisible();
      found.push(...(await violations(page)).map((v) => `${theme} ${path}: ${v}`));
    }
  }
  expect(found).toEqual([]);
});

for (const theme of ['light', 'dark'] as const) {
  test(`the workspace in the ${theme} theme has no serious or critical accessibility violation`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: theme });
    await openTemplate(page);
    await expect(page.getByTestId('problem-count')).toHaveText(/^\d+$/, { timeout: 60_000 });
    expect(await violations(page)).toEqual([]);
  });
}

test('each bottom panel tab and the Share popover have no serious or critical accessibility violation', async ({ page }) => {
  await openTemplate(page);
  const tabs = page.getByRole('tablist', { name: 'Panels' }).getByRole('tab');
  const found: string[] = [];
  const count = await tabs.count();
  expect(count).toBeGreaterThan(3);
  for (let i = 0; i < count; i++) {
    const tab = tabs.nth(i);
    await tab.click();
    await expect(tab).toHaveAttribute('aria-selected', 'true');
    const name = (await tab.innerText()).trim();
    found.push(...(await violations(page)).map((v) => `${name}: ${v}`));
  }
  await page.getByRole('button', { name: 'Share…' }).click();
  await expect(page.getByTestId('share-link')).toBeVisible();
  found.push(...(await violations(page)).map((v) => `Share: ${v}`));
  expect(found).toEqual([]);
});

test('the embed has no serious or critical accessibility violation', async ({ page }) => {
  await openTemplate(page);
  await page.getByRole('button', { name: 'Share…' }).click();
  const link = await page.getByTestId('share-link').inputValue();
  const hash = link.slice(link.indexOf('#'));
  for (const mode of ['embed', 'embed=readonly']) {
    await page.goto(`/?${mode}${hash}`);
    await expect(page.locator('iframe.preview-frame').first()).toBeVisible({ timeout: 60_000 });
    expect((await violations(page)).map((v) => `${mode}: ${v}`)).toEqual([]);
  }
});

test('the panel tabs and the Data views move with the arrow keys, Home and End, one tab stop each', async ({ page }) => {
  await openTemplate(page);
  const panels = page.getByRole('tablist', { name: 'Panels' });
  const problems = panels.getByRole('tab', { name: /^Problems/ });
  await problems.click();
  await expect(panels.locator('[role="tab"][tabindex="0"]')).toHaveCount(1);
  await page.keyboard.press('ArrowRight');
  const console = panels.getByRole('tab', { name: /^Console/ });
  await expect(console).toBeFocused();
  await expect(console).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  // The terminal panel opened (it used to take the focus from its tab as it did).
  await expect(page.locator('.terminal-host')).toBeVisible();
  await expect(page.locator('.terminal-host .xterm')).toBeVisible();
  await expect(panels.getByRole('tab', { name: 'Terminal' })).toBeFocused();
  await page.keyboard.press('Home');
  await expect(problems).toHaveAttribute('aria-selected', 'true');
  await panels.getByRole('tab', { name: 'Data' }).click();
  const views = page.getByRole('tablist', { name: 'Data views' });
  await views.getByRole('tab', { name: 'Tables' }).focus();
  await page.keyboard.press('End');
  await expect(views.getByRole('tab', { name: 'Export, import, reset' })).toHaveAttribute('aria-selected', 'true');
  await expect(views.getByRole('tab', { name: 'Export, import, reset' })).toBeFocused();
});

test('the Share popover takes the focus as it opens and gives it back to the Share button as it closes', async ({ page }) => {
  await openTemplate(page);
  const share = page.getByRole('button', { name: 'Share…' });
  await share.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Share' });
  await expect(dialog).toBeVisible();
  await expect.poll(() => dialog.evaluate((el) => el.contains(document.activeElement))).toBe(true);
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(share).toBeFocused();
  // Closed with its × too.
  await share.click();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(share).toBeFocused();
});
