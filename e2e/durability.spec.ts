/**
 * Nothing acknowledged is lost: a write the preview showed as done, an edit, a deletion, each followed
 * at once by a reload (no waiting on autosave: the reload is the next action).
 */
import { expect, test, type Page } from './profile';
import { editorText, openTemplate, preview, replaceEditorText } from './helpers';

test.describe.configure({ timeout: 120_000 });

async function reloadReady(page: Page) {
  await page.reload();
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
}

test('a todo the preview showed as added survives a reload right after it, persona switches included', async ({ page }) => {
  await openTemplate(page);
  await preview(page).getByLabel('New todo').fill('milk');
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText('milk')).toBeVisible();
  await page.getByRole('button', { name: 'bob' }).click();
  await page.getByRole('button', { name: 'alice' }).click();
  await expect(preview(page).getByText('milk')).toBeVisible();
  await reloadReady(page);
  await expect(preview(page).getByText('milk')).toBeVisible();
  // And a second one, reloaded the moment it shows.
  await preview(page).getByLabel('New todo').fill('eggs');
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText('eggs')).toBeVisible();
  await reloadReady(page);
  await expect(preview(page).getByText('eggs')).toBeVisible();
  await expect(preview(page).getByText('milk')).toBeVisible();
});

test('an edit and a file deletion survive a reload right after them', async ({ page }) => {
  await openTemplate(page);
  await page.getByRole('treeitem', { name: 'main.tsx', exact: true }).click();
  const marker = '// edited just before the reload';
  await replaceEditorText(page, `${marker}\n${await editorText(page)}`);
  await reloadReady(page);
  await page.getByRole('treeitem', { name: 'main.tsx', exact: true }).click();
  expect((await editorText(page)).startsWith(marker)).toBe(true);

  await page.getByRole('treeitem', { name: 'todos.test.ts' }).click();
  await page.getByRole('treeitem', { name: 'todos.test.ts' }).press('Delete');
  await page.getByRole('alertdialog', { name: /^Delete .*todos\.test\.ts\?$/ }).getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(page.getByRole('treeitem', { name: 'todos.test.ts' })).toHaveCount(0);
  await reloadReady(page);
  await expect(page.getByRole('treeitem', { name: 'main.tsx', exact: true })).toBeVisible();
  await expect(page.getByRole('treeitem', { name: 'todos.test.ts' })).toHaveCount(0);
});
