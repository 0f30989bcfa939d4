/**
 * The editor's state that people expect to keep (issue 17 item 4): a deleted file or folder comes back
 * with Undo (text and tab, and durably), and each file's cursor and scroll are where they were after a
 * reload: typing at the cursor lands where it was left.
 */
import { expect, test, type Page } from './profile';
import { editorText, openTemplate } from './helpers';

test.describe.configure({ timeout: 120_000 });

async function reloadReady(page: Page) {
  await page.reload();
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
}

const tab = (page: Page, path: string) => page.getByRole('tab', { name: path, exact: true });

async function deleteFromTree(page: Page, name: string, path: string) {
  await page.getByRole('treeitem', { name, exact: true }).press('Delete');
  await page.getByRole('alertdialog', { name: `Delete ${path}?` }).getByRole('button', { name: 'Delete', exact: true }).click();
}

test('a deleted file comes back with Undo: its text, its tab, and after a reload', async ({ page }) => {
  await openTemplate(page);
  await page.getByRole('treeitem', { name: 'todos.test.ts', exact: true }).click();
  await expect(tab(page, 'tests/todos.test.ts')).toHaveAttribute('aria-selected', 'true');
  const text = await editorText(page);
  expect(text.length).toBeGreaterThan(100);

  await deleteFromTree(page, 'todos.test.ts', 'tests/todos.test.ts');
  await expect(page.getByRole('treeitem', { name: 'todos.test.ts', exact: true })).toHaveCount(0);
  await expect(tab(page, 'tests/todos.test.ts')).toHaveCount(0);
  const notice = page.getByTestId('deleted-notice');
  await expect(notice).toHaveText(/^Deleted tests\/todos\.test\.ts · Undo/);
  await page.screenshot({ path: test.info().outputPath('deleted-notice.png') });

  await notice.getByRole('button', { name: 'Undo', exact: true }).click();
  await expect(notice).toHaveCount(0);
  await expect(page.getByRole('treeitem', { name: 'todos.test.ts', exact: true })).toBeVisible();
  await expect(tab(page, 'tests/todos.test.ts')).toHaveAttribute('aria-selected', 'true');
  await expect.poll(() => editorText(page)).toBe(text);

  // The undo is kept like any change: right after it, a reload still has the file.
  await reloadReady(page);
  await page.getByRole('treeitem', { name: 'todos.test.ts', exact: true }).click();
  await expect.poll(() => editorText(page)).toBe(text);
});

test('a deleted folder comes back whole with Undo; a deletion not undone stays deleted', async ({ page }) => {
  await openTemplate(page);
  await page.getByRole('treeitem', { name: 'client', exact: true }).focus();
  await deleteFromTree(page, 'client', 'src/client');
  const notice = page.getByTestId('deleted-notice');
  await expect(notice).toHaveText(/^Deleted src\/client · Undo/);
  await expect(page.getByRole('treeitem', { name: 'main.tsx', exact: true })).toHaveCount(0);
  await expect(page.getByRole('treeitem', { name: 'style.css', exact: true })).toHaveCount(0);
  await notice.getByRole('button', { name: 'Undo', exact: true }).click();
  await expect(page.getByRole('treeitem', { name: 'main.tsx', exact: true })).toBeVisible();
  await expect(page.getByRole('treeitem', { name: 'style.css', exact: true })).toBeVisible();
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });

  // Dismissed: gone for good, after a reload too.
  await page.getByRole('treeitem', { name: 'todos.test.ts', exact: true }).focus();
  await deleteFromTree(page, 'todos.test.ts', 'tests/todos.test.ts');
  await notice.getByRole('button', { name: 'Dismiss' }).click();
  await expect(notice).toHaveCount(0);
  await reloadReady(page);
  await expect(page.getByRole('treeitem', { name: 'main.tsx', exact: true })).toBeVisible();
  await expect(page.getByRole('treeitem', { name: 'todos.test.ts', exact: true })).toHaveCount(0);
});

test("a reload puts each file's cursor and scroll back: typing lands where the cursor was", async ({ page }) => {
  await openTemplate(page);
  const content = page.locator('.cm-content');
  // The server file: the cursor at the end of line 3.
  await page.getByRole('treeitem', { name: 'index.ts', exact: true }).click();
  await expect(content).toHaveAttribute('data-path', 'src/server/index.ts');
  await content.click();
  await page.keyboard.press('ControlOrMeta+Home');
  for (let i = 0; i < 2; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('End');
  const serverLine = (await editorText(page)).split('\n')[2]!;
  // The client file: the cursor at the end of its last line, scrolled down to it.
  await page.getByRole('treeitem', { name: 'main.tsx', exact: true }).click();
  await expect(content).toHaveAttribute('data-path', 'src/client/main.tsx');
  await content.click();
  await page.keyboard.press('ControlOrMeta+End');
  await expect.poll(() => page.locator('.cm-scroller').evaluate((el) => el.scrollTop)).toBeGreaterThan(100);
  const clientLines = (await editorText(page)).split('\n');

  await reloadReady(page);
  // main.tsx is open again, scrolled where it was, its cursor at the end.
  await expect(content).toHaveAttribute('data-path', 'src/client/main.tsx');
  await expect.poll(() => page.locator('.cm-scroller').evaluate((el) => el.scrollTop)).toBeGreaterThan(100);
  await expect(page.locator('.cm-activeLine')).toBeInViewport();
  await content.focus();
  await page.keyboard.type('// typed after the reload');
  await expect.poll(async () => (await editorText(page)).split('\n').at(-1)).toBe(`${clientLines.at(-1)}// typed after the reload`);

  // The server file, shown for the first time since the reload: its own cursor.
  await page.getByRole('treeitem', { name: 'index.ts', exact: true }).click();
  await expect(content).toHaveAttribute('data-path', 'src/server/index.ts');
  await content.focus();
  await page.keyboard.type('/* here */');
  await expect.poll(async () => (await editorText(page)).split('\n')[2]).toBe(`${serverLine}/* here */`);
});

test('at 390 px the Undo of a deletion in the Files view is on screen', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openTemplate(page);
  await page.getByRole('tab', { name: 'Files', exact: true }).click();
  await page.getByRole('treeitem', { name: 'style.css', exact: true }).focus();
  await deleteFromTree(page, 'style.css', 'src/client/style.css');
  const notice = page.getByTestId('deleted-notice');
  await expect(notice).toBeInViewport({ ratio: 1 });
  await page.screenshot({ path: test.info().outputPath('deleted-notice-390.png') });
  await notice.getByRole('button', { name: 'Undo', exact: true }).click();
  await expect(page.getByRole('treeitem', { name: 'style.css', exact: true })).toBeVisible();
});
