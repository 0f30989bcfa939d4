/** The editor's search and replace (CodeMirror's panel on Mod-f) and each file's own scroll position. */
import { expect, test, type Page } from './profile';
import { editorText, openTemplate, preview, replaceFile } from './helpers';

test.describe.configure({ timeout: 120_000 });

const scroller = (page: Page) => page.locator('.cm-scroller');
const scrollOf = (page: Page) => scroller(page).evaluate((el) => ({ left: el.scrollLeft, top: el.scrollTop }));

test('Mod-f opens search and replace in the editor; replace all edits the file and the preview follows', async ({ page }) => {
  await openTemplate(page);
  await page.getByRole('treeitem', { name: 'main.tsx', exact: true }).click();
  await page.locator('.cm-content').click();
  await page.keyboard.press('ControlOrMeta+f');
  const panel = page.locator('.cm-search');
  await expect(panel).toBeVisible();
  await expect(panel.locator('input[name=search]')).toBeFocused();
  await panel.locator('input[name=search]').fill('<h1>Todos</h1>');
  await panel.locator('input[name=replace]').fill('<h1>My todos</h1>');
  await panel.getByRole('button', { name: 'replace all' }).click();
  expect(await editorText(page)).toContain('<h1>My todos</h1>');
  expect(await editorText(page)).not.toContain('<h1>Todos</h1>');
  await expect(preview(page).getByRole('heading', { name: 'My todos', level: 1 })).toBeVisible({ timeout: 60_000 });
  // Escape closes the panel and leaves the editor focused.
  await panel.locator('input[name=search]').press('Escape');
  await expect(panel).toHaveCount(0);
  await expect(page.locator('.cm-content')).toBeFocused();
});

test('each file keeps its own scroll position; a file opened for the first time starts at its top left', async ({ page }) => {
  await openTemplate(page);
  // A line wide enough to scroll sideways, then scrolled right and down.
  await replaceFile(page, 'main.tsx', (text) => `// ${'wide '.repeat(200)}\n${text}${'\n// more'.repeat(80)}\n`);
  await scroller(page).evaluate((el) => el.scrollTo({ left: 400, top: 300 }));
  await expect.poll(() => scrollOf(page)).toEqual({ left: 400, top: 300 });

  await page.getByRole('treeitem', { name: 'todos.test.ts' }).click();
  await expect(page.getByRole('tab', { name: /todos\.test\.ts/ })).toHaveAttribute('aria-selected', 'true');
  await expect.poll(() => scrollOf(page)).toEqual({ left: 0, top: 0 });

  await page.getByRole('treeitem', { name: 'main.tsx', exact: true }).click();
  await expect(page.getByRole('tab', { name: /main\.tsx/ })).toHaveAttribute('aria-selected', 'true');
  await expect.poll(() => scrollOf(page)).toEqual({ left: 400, top: 300 });
});
