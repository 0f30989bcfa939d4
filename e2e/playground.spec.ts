import { expect, test } from './profile';
import { afterRebuild, editorText, openTemplate, preview, replaceEditorText, replaceFile, storedProject } from './helpers';

// Each test starts the compiler worker (esbuild-wasm and TypeScript) in a fresh page, on 2 cores.
test.describe.configure({ timeout: 120_000 });

test('first visit: the gallery offers every template with a description', async ({ page }, testInfo) => {
  await page.goto('/');
  for (const id of ['todo', 'files', 'team-board', 'endpoints']) await expect(page.locator(`[data-template="${id}"]`)).toBeVisible();
  await expect(page.locator('[data-template="todo"]')).toContainText('A private todo list per user');
  await testInfo.attach('gallery', { body: await page.screenshot(), contentType: 'image/png' });
});

test('a template opens, builds and runs in the preview as alice', async ({ page }, testInfo) => {
  await openTemplate(page);
  await expect(preview(page).getByRole('heading', { name: 'Todos' })).toBeVisible();
  await preview(page).getByLabel('New todo').fill('milk');
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText('milk')).toBeVisible();
  await expect(preview(page).getByText('1 left')).toBeVisible();
  await testInfo.attach('preview', { body: await page.screenshot(), contentType: 'image/png' });
});

test('editing the server changes the preview; breaking the build keeps the last good preview and says so', async ({ page }, testInfo) => {
  await openTemplate(page);
  await page.getByRole('treeitem', { name: 'index.ts' }).click();
  await expect(page.getByRole('tab', { name: /index\.ts/ })).toHaveAttribute('aria-selected', 'true');
  const original = await editorText(page);
  expect(original).toContain("insert({ title: checked.title })");
  // "Ready" is on screen before the edit's quiet window ends too: wait for the new build in the preview.
  await afterRebuild(page, () => replaceEditorText(page, original.replace("insert({ title: checked.title })", "insert({ title: checked.title.toUpperCase() })")));
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 30_000 });
  await preview(page).getByLabel('New todo').fill('milk');
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText('MILK')).toBeVisible();

  await replaceEditorText(page, original.replace("'todos.add': mutation({", "'todos.add': mutation({{"));
  await expect(page.getByTestId('compile-status')).toHaveText('Build failed: showing the last good build', { timeout: 30_000 });
  // The real error is listed first; DG1602 (the rebuild failed) is the state of the build, in the status bar.
  await expect(page.locator('.diagnostic[data-code="DG1205"]').first()).toContainText('src/server/index.ts');
  await expect(page.locator('.diagnostic[data-code="DG1602"]')).toHaveCount(0);
  await expect(page.getByTestId('compile-status')).toHaveAttribute('title', /previous generation is still serving/);
  // The last good generation still serves.
  await expect(preview(page).getByText('MILK')).toBeVisible();
  await testInfo.attach('last good build', { body: await page.screenshot(), contentType: 'image/png' });
});

test('personas: bob does not see alice\'s todos; in split view a mutation refreshes the other preview live', async ({ page }, testInfo) => {
  await openTemplate(page, 'team-board');
  await page.getByLabel('split').check();
  await expect(page.locator('iframe.preview-frame')).toHaveCount(2);
  await expect(page.locator('.preview[data-persona="alice"]')).toBeVisible();
  await expect(page.locator('.preview[data-persona="bob"]')).toBeVisible();
  await preview(page, 0).getByLabel('New card').fill('Plan the launch');
  await preview(page, 0).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page, 0).getByText('Plan the launch')).toBeVisible();
  // Bob shares ws-team with alice: his preview refreshes by itself.
  await expect(preview(page, 1).getByText('Plan the launch')).toBeVisible({ timeout: 10_000 });
  await testInfo.attach('split', { body: await page.screenshot(), contentType: 'image/png' });

  await page.getByLabel('split').uncheck();
  await page.getByRole('button', { name: 'guest' }).click();
  await expect(preview(page).getByText('You are not a member of any workspace.')).toBeVisible();
});

test('a reload restores the files, the open file, the persona and the app\'s data', async ({ page }) => {
  await openTemplate(page);
  await preview(page).getByLabel('New todo').fill('bread');
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText('bread')).toBeVisible();
  await page.getByRole('treeitem', { name: 'app.manifest.json' }).click();
  await page.getByRole('button', { name: 'bob' }).click();
  await page.getByRole('button', { name: 'alice' }).click();
  // Autosave and the committed state land shortly after: reload once they are in IndexedDB.
  await expect.poll(() => storedProject(page, 'bread'), { timeout: 15_000 }).toEqual({ activeFile: 'app.manifest.json', persona: 'alice', stateHolds: true });
  await page.reload();
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 30_000 });
  await expect(page.getByRole('tab', { name: /app\.manifest\.json/ })).toHaveAttribute('aria-selected', 'true');
  await expect(preview(page).getByText('bread')).toBeVisible();
});

test('a second tab on the same project says plainly that it is open elsewhere', async ({ page, context }) => {
  await openTemplate(page);
  const second = await context.newPage();
  await second.goto(page.url());
  await expect(second.getByTestId('lease-held')).toContainText('is open in another tab');
  await second.getByRole('button', { name: 'Open a copy here' }).click();
  await expect(second.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 30_000 });
  expect(second.url()).not.toBe(page.url());
});

test('the manifest JSON Schema is served for editors', async ({ request }) => {
  const response = await request.get('/app.manifest.schema.json');
  expect(response.ok()).toBe(true);
  const schema = await response.json();
  expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
});

test('a schema change the data cannot follow is DG1603: the last good build serves on; resetting the data adopts it', async ({ page }, testInfo) => {
  await openTemplate(page);
  await preview(page).getByLabel('New todo').fill('milk');
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText('1 left')).toBeVisible();

  await replaceFile(page, 'app.manifest.json', (text) => text.replace('"maxLength": 200', '"maxLength": 100'));
  await expect(page.getByTestId('compile-status')).toHaveText('Build failed: showing the last good build', { timeout: 60_000 });
  await expect(page.locator('.diagnostic[data-code="DG1603"]')).toContainText('could not take over');
  // The last good generation restarted on the same data and still answers.
  await preview(page).getByLabel('New todo').fill('bread');
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText('2 left')).toBeVisible();
  await testInfo.attach('DG1603', { body: await page.screenshot(), contentType: 'image/png' });

  await page.getByRole('button', { name: 'Reset data' }).click();
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
  await expect(preview(page).getByText('0 left')).toBeVisible();
});
