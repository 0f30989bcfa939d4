import { expect, test } from './profile';
import { afterRebuild, openTemplate, preview, replaceFile } from './helpers';

const addTodo = async (page: import('@playwright/test').Page, title: string) => {
  await preview(page).getByLabel('New todo').fill(title);
  await preview(page).getByRole('button', { name: 'Add' }).click();
};

test('a compatible schema change keeps the rows (and a recovery copy from before it restores); retyping a field that holds rows is DG1603 naming it', async ({ page }, testInfo) => {
  await openTemplate(page);
  await addTodo(page, 'milk');
  await expect(preview(page).getByText('1 left')).toBeVisible();
  // A recovery copy made under the first schema.
  await page.locator('.toolbar').getByRole('button', { name: 'Reset data' }).click();
  await expect(preview(page).getByText('0 left')).toBeVisible({ timeout: 30_000 });
  await addTodo(page, 'bread');
  await expect(preview(page).getByText('1 left')).toBeVisible();

  // An optional field with a default: the build takes over and the row is kept.
  await afterRebuild(page, () => replaceFile(page, 'app.manifest.json', (text) => text.replace('"done": {', '"priority": { "type": "number", "optional": true, "default": 0 },\n          "done": {')));
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
  await expect(preview(page).getByText('bread', { exact: true })).toBeVisible();
  await expect(preview(page).getByText('1 left')).toBeVisible();

  // The copy from before the change restores after it.
  await page.locator('.toolbar').getByRole('button', { name: /^Restore data from / }).click();
  await expect(preview(page).getByText('milk', { exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('session-notice')).toContainText('was restored');

  // title retyped to number (the server follows, so it builds): refused, naming the field; the last good build serves on.
  await replaceFile(page, 'index.ts', (text) => text.replace('title: string; done', 'title: number; done').replace('insert({ title: checked.title })', 'insert({ title: checked.title.length })'));
  await replaceFile(page, 'app.manifest.json', (text) => text.replace('"type": "string",\n            "maxLength": 200', '"type": "number"'));
  const refused = page.locator('.diagnostic[data-code="DG1603"]');
  await expect(refused).toContainText('todos.title: is a string field holding values in 1 row and would become a number field', { timeout: 60_000 });
  await expect(page.getByTestId('compile-status')).toHaveText('Build failed: showing the last good build');
  await expect(preview(page).getByText('milk', { exact: true })).toBeVisible();
  await testInfo.attach('DG1603 naming the field', { body: await page.screenshot(), contentType: 'image/png' });
});
