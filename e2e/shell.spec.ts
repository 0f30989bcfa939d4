import { expect, test } from '@playwright/test';

test('the playground opens, checks its starter app clean and compiles it', async ({ page }, testInfo) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Platform Playground' })).toBeVisible();
  await expect(page.getByTestId('all-clear')).toHaveText('✓ No problems found.');
  await expect(page.getByTestId('compile-status')).toHaveText(/^Built sha256:[0-9a-f]{12}… in \d+ ms$/, { timeout: 20_000 });
  await testInfo.attach('compiled', { body: await page.screenshot(), contentType: 'image/png' });
  expect(errors).toEqual([]);
});

test('a misspelt property is a DG1003 at its line and column, with a suggestion and the repair text', async ({ page }, testInfo) => {
  await page.goto('/');
  const editor = page.getByRole('textbox', { name: 'app.manifest.json' });
  const text = await editor.inputValue();
  await editor.fill(text.replace('"name": "todo-app"', '"nmae": "todo-app"'));
  const problem = page.locator('.diagnostic[data-code="DG1003"]');
  await expect(problem).toContainText('app.manifest.json:3:3');
  await expect(problem).toContainText('Unknown property "nmae" in the manifest.');
  await expect(problem.locator('.hint')).toHaveText('Did you mean "name"?');
  // The missing name is reported too: every problem at once.
  await expect(page.locator('.diagnostic[data-code="DG1002"]')).toContainText('missing the required property "name"');
  await expect(page.getByTestId('problem-count')).toHaveText('2');
  await expect(page.getByTestId('compile-status')).toHaveText(/^Not built: fix the errors/, { timeout: 20_000 });

  await problem.getByRole('button', { name: 'How to fix' }).click();
  await expect(problem.locator('.repair')).toContainText('Unknown manifest property');

  // Clicking the diagnostic selects the offending text in the editor.
  await problem.locator('.diagnostic-main').click();
  const selected = await editor.evaluate((el: HTMLTextAreaElement) => el.value.slice(el.selectionStart, el.selectionEnd));
  expect(selected).toBe('"nmae"');
  await testInfo.attach('DG1003', { body: await page.screenshot(), contentType: 'image/png' });
});

test('a manifest change that breaks the code shows the type errors of other files', async ({ page }, testInfo) => {
  await page.goto('/');
  const editor = page.getByRole('textbox', { name: 'app.manifest.json' });
  await expect(page.getByTestId('compile-status')).toHaveText(/^Built/, { timeout: 20_000 });
  const text = await editor.inputValue();
  // Renaming the field the server and its policy rely on breaks the server's types.
  await editor.fill(text.replace(/"ownerId"/g, '"owner"'));
  const typeError = page.locator('.diagnostic[data-code="DG1205"]').first();
  await expect(typeError).toContainText('src/server/index.ts:', { timeout: 20_000 });
  await expect(typeError).toContainText('TS');
  await expect(page.getByTestId('compile-status')).toHaveText(/^Not built/);
  await testInfo.attach('type errors', { body: await page.screenshot(), contentType: 'image/png' });
});

test('broken JSON and capability mismatches are reported without a blank screen', async ({ page }) => {
  await page.goto('/');
  const editor = page.getByRole('textbox', { name: 'app.manifest.json' });
  await editor.fill('{ "format": ');
  await expect(page.locator('.diagnostic[data-code="DG1002"]').first()).toContainText('not valid JSON');
  await editor.fill(
    JSON.stringify({ format: 'platform.application-source.v0', name: 'app', entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' }, storage: {} }),
  );
  await expect(page.locator('.diagnostic[data-code="DG1002"]').first()).toContainText('"capabilities" does not contain "storage"');
  await page.getByRole('button', { name: 'Reset' }).click();
  await expect(page.getByTestId('all-clear')).toHaveText('✓ No problems found.');
});

test('the manifest JSON Schema is served for editors', async ({ request }) => {
  const response = await request.get('/app.manifest.schema.json');
  expect(response.ok()).toBe(true);
  const schema = await response.json();
  expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  expect(schema.properties.format.const).toBe('platform.application-source.v0');
});
