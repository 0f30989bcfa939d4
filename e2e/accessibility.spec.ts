/**
 * axe-core over the playground's views (the start page and the workspace with a template open, each in
 * the light and the dark theme, the docs served under /docs/, the bottom panel's tabs, the Share popover
 * and the embed): a serious or critical violation fails the test, named with its rule, its elements
 * and axe's own summary of the fix.
 */
import { expect, test } from './profile';
import { afterRebuild, openTemplate, replaceFile, violations } from './helpers';

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

for (const theme of ['light', 'dark'] as const) {
  test(`in the ${theme} theme, each bottom panel tab with something in it, the Share popover and presenter mode have no serious or critical accessibility violation`, async ({ page }) => {
    // Three rebuilds and a test run on 2 cores.
    test.setTimeout(240_000);
    await page.emulateMedia({ colorScheme: theme });
    await openTemplate(page);
    await expect(page.locator('.playground')).toHaveAttribute('data-theme', theme);
    const tab = (name: RegExp) => page.getByRole('tablist', { name: 'Panels' }).getByRole('tab', { name });

    // Tests after a run, one of them failing (its expected and actual shown).
    await replaceFile(page, 'todos.test.ts', (text) => text.replace('expect(todos).toHaveLength(1);', 'expect(todos).toHaveLength(2);'));
    await tab(/^Tests/).click();
    await page.getByRole('button', { name: 'Run all tests' }).click();
    await expect(page.getByTestId('tests-summary')).toHaveText(/^5 passed, 1 failed/, { timeout: 90_000 });
    // Console lines at each level, from the client.
    await afterRebuild(page, () =>
      replaceFile(page, 'main.tsx', (text) => `console.info('axe: an info line');\nconsole.warn('axe: a warning line');\nconsole.error('axe: an error line');\n${text}`),
    );
    // A problem: a type error.
    await replaceFile(page, 'main.tsx', (text) => `${text}\nexport const notANumber: number = 'a string';\n`);
    await expect(page.getByTestId('problem-count')).toHaveText(/^[1-9]\d*$/, { timeout: 60_000 });

    const shown: Record<string, () => Promise<void>> = {
      Problems: () => expect(page.locator('.diagnostic').first()).toBeVisible(),
      Console: () => expect(page.locator('.console-line').filter({ hasText: 'axe: an error line' }).first()).toBeVisible(),
      Tests: () => expect(page.locator('.test-case.failed')).toHaveCount(1),
      Events: () => expect(page.locator('.events li').first()).toBeVisible(),
      Data: () => expect(page.getByRole('tablist', { name: 'Data views' })).toBeVisible(),
      Deploy: () => expect(page.getByRole('region', { name: 'Deploy' })).toBeVisible(),
      Terminal: () => expect(page.locator('.terminal-host .xterm')).toBeVisible({ timeout: 30_000 }),
    };
    // Maximised, the panel shows all it lists to axe rather than its first rows.
    await page.getByRole('button', { name: 'Maximise the panel' }).click();
    const found: string[] = [];
    for (const [name, ready] of Object.entries(shown)) {
      await tab(new RegExp(`^${name}`)).click();
      await expect(tab(new RegExp(`^${name}`))).toHaveAttribute('aria-selected', 'true');
      await ready();
      found.push(...(await violations(page)).map((v) => `${name}: ${v}`));
    }
    // Every tab is covered.
    expect(await page.getByRole('tablist', { name: 'Panels' }).getByRole('tab').count()).toBe(Object.keys(shown).length);

    await page.getByRole('button', { name: 'Share…' }).click();
    await expect(page.getByTestId('share-link')).toBeVisible();
    found.push(...(await violations(page)).map((v) => `Share: ${v}`));
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog', { name: 'Share' })).toHaveCount(0);

    await page.keyboard.press('Shift+Alt+KeyP');
    await expect(page.locator('.playground')).toHaveClass(/\bpresenting\b/);
    found.push(...(await violations(page)).map((v) => `Presenting: ${v}`));
    expect(found).toEqual([]);
  });
}

test('the embed has no serious or critical accessibility violation, editable with each of its tabs and read-only, in both themes', async ({ page }) => {
  // Four embeds, each loaded and built, and axe over eight views: on 2 cores, more than the usual 2 minutes.
  test.setTimeout(360_000);
  await openTemplate(page);
  await page.getByRole('button', { name: 'Share…' }).click();
  const link = await page.getByTestId('share-link').inputValue();
  const hash = link.slice(link.indexOf('#'));
  const found: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    for (const mode of ['embed', 'embed=readonly']) {
      await page.goto(`/?${mode}${hash}`);
      await expect(page.locator('iframe.preview-frame').first()).toBeVisible({ timeout: 60_000 });
      await expect(page.getByTestId('compile-status')).toHaveText('Ready', { timeout: 60_000 });
      found.push(...(await violations(page)).map((v) => `${theme} ${mode}: ${v}`));
      const tabs = page.getByRole('tablist', { name: 'Panels' }).getByRole('tab');
      for (let i = 0; i < (await tabs.count()); i++) {
        // The editable embed with each tab shown; the read-only one with its first.
        if (mode !== 'embed' && i > 0) break;
        const tab = tabs.nth(i);
        await tab.click();
        await expect(page.getByRole('tabpanel')).toBeVisible();
        const name = (await tab.innerText()).trim();
        found.push(...(await violations(page)).map((v) => `${theme} ${mode} ${name}: ${v}`));
      }
    }
  }
  expect(found).toEqual([]);
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
