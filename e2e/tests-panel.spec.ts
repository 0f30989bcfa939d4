import { expect, test } from './profile';
import { cursorLine, openTemplate, preview, replaceFile } from './helpers';

// Each test starts the compiler worker (esbuild-wasm and TypeScript) in a fresh page, on 2 cores.
test.describe.configure({ timeout: 120_000 });

test("the template's tests pass in their own sandbox and never touch the preview's data", async ({ page }, testInfo) => {
  await openTemplate(page);
  await preview(page).getByLabel('New todo').fill('milk');
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText('1 left')).toBeVisible();

  // Mod-Enter, from the page as from the editor, runs every test.
  await page.locator('.cm-content').click();
  await page.keyboard.press('ControlOrMeta+Enter');
  await expect(page.getByRole('tab', { name: /Tests/ })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('tests-summary')).toHaveText(/^6 passed, 0 failed in/, { timeout: 60_000 });
  await expect(page.locator('.test-case.passed')).toHaveCount(6);
  await testInfo.attach('tests passed', { body: await page.screenshot(), contentType: 'image/png' });

  // The run is in the event log.
  await page.getByRole('tab', { name: 'Events' }).click();
  await expect(page.locator('.events li[data-kind="test.case.pass"]')).toHaveCount(6);
  await expect(page.locator('.events li[data-kind="test.run.finish"]')).toContainText('passed=6 failed=0');

  // The tests cleared nothing: the preview still shows alice's todo, after a reload too.
  await expect(preview(page).getByText('milk')).toBeVisible();
  await page.reload();
  await expect(preview(page).getByText('1 left')).toBeVisible({ timeout: 60_000 });
});

test('a failing test shows expected and actual, jumps to its line, and runs again alone', async ({ page }, testInfo) => {
  await openTemplate(page);
  await replaceFile(page, 'todos.test.ts', (text) => text.replace('expect(todos).toHaveLength(1);', 'expect(todos).toHaveLength(2);'));
  await page.getByRole('tab', { name: /Tests/ }).click();
  await page.getByRole('button', { name: 'Run all tests' }).click();
  await expect(page.getByTestId('tests-summary')).toHaveText(/^5 passed, 1 failed/, { timeout: 60_000 });
  const failed = page.locator('.test-case.failed');
  await expect(failed).toHaveCount(1);
  await expect(failed.locator('.test-name')).toHaveText('a todo added is listed for its owner');
  await expect(failed.getByTestId('expected')).toContainText('2');
  await expect(failed.getByTestId('actual')).toContainText('1');
  await expect(failed).toContainText('DG1904');
  await testInfo.attach('a failing test', { body: await page.screenshot(), contentType: 'image/png' });

  // Clicking the failure's location opens the test file at the failing line.
  await page.getByRole('treeitem', { name: 'main.tsx' }).click();
  await failed.locator('.test-location').click();
  await expect(page.getByRole('tab', { name: /todos\.test\.ts/ })).toHaveAttribute('aria-selected', 'true');
  await expect(failed.locator('.test-location')).toHaveText(/^tests\/todos\.test\.ts:6:\d+$/);
  await expect.poll(() => cursorLine(page)).toBe(6);

  // Fixed, that test runs alone; the others keep their outcome.
  await replaceFile(page, 'todos.test.ts', (text) => text.replace('expect(todos).toHaveLength(2);', 'expect(todos).toHaveLength(1);'));
  // By keyboard: its Run shows while the row is hovered or the button has focus, and in the panel's
  // default height the list scrolls under its toolbar, where a pointer could land on the toolbar.
  const runOne = page.getByRole('button', { name: 'Run "a todo added is listed for its owner"' });
  await runOne.focus();
  await expect(runOne).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('tests-summary')).toHaveText(/^6 passed, 0 failed/, { timeout: 60_000 });
  await expect(page.locator('.test-case.passed')).toHaveCount(6);
});

test('a test that never ends is stopped (DG1906), the others still run, and the editor stays responsive', async ({ page }, testInfo) => {
  await openTemplate(page);
  await replaceFile(page, 'todos.test.ts', (text) => `${text}\ntest('spins forever', () => {\n  while (true) {}\n});\n`);
  await page.getByRole('tab', { name: /Tests/ }).click();
  await page.getByRole('button', { name: 'Run all tests' }).click();
  await expect(page.locator('.test-case.running .test-name')).toHaveText('spins forever', { timeout: 60_000 });
  // While the sandbox spins, the page answers.
  await page.getByRole('treeitem', { name: 'app.manifest.json' }).click();
  await expect(page.getByRole('tab', { name: /app\.manifest\.json/ })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('tests-summary')).toHaveText(/^6 passed, 1 failed/, { timeout: 60_000 });
  const stopped = page.locator('.test-case.failed');
  await expect(stopped.locator('.test-name')).toHaveText('spins forever');
  await expect(stopped).toContainText('DG1906');
  await testInfo.attach('a runaway test stopped', { body: await page.screenshot(), contentType: 'image/png' });
});
