/**
 * The embed's strip of Problems, Console and Tests, its Reset data, and its read-only view (issue 33):
 * an editable embed of a share link finds a type error, a handler's console line and the tests, each a
 * click from its place in the editor, and empties the app's data; a read-only one shows the code
 * highlighted with line numbers, takes no typing, and still shows and opens its problems.
 */
import { expect, test, type Browser, type Page } from './profile';
import { cursorLine, editorText, openTemplate, preview, replaceEditorText } from './helpers';
import { addTodo, shareLink } from './share-helpers';

// Each test starts the compiler worker (esbuild-wasm and TypeScript) in a fresh page, on 2 cores.
test.describe.configure({ timeout: 180_000 });

const TYPE_ERROR = "export const wrong: number = 'not a number';";

/** A share link of a new todo project, without data; `edit` changes its client file first. */
async function todoLink(page: Page, edit?: (text: string) => string): Promise<string> {
  await openTemplate(page);
  if (edit) {
    await page.getByRole('treeitem', { name: 'main.tsx', exact: true }).click();
    await replaceEditorText(page, edit(await editorText(page)));
  }
  const url = await shareLink(page, false);
  return url.slice(url.indexOf('#'));
}

/** The embed of the link `hash` in a fresh browser context (a visitor), at 900 × 600. */
async function openEmbed(browser: Browser, query: string, hash: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 900, height: 600 } });
  const embed = await context.newPage();
  await embed.goto(`/?${query}${hash}`);
  await expect(embed.getByTestId('embed')).toBeVisible();
  return embed;
}

test('an editable embed shows Problems, Console and Tests, each a click away from its place in the editor, and Reset data empties the app', async ({ page, browser }, testInfo) => {
  const embed = await openEmbed(browser, 'embed', await todoLink(page));
  await expect(embed.getByTestId('compile-status')).toHaveText('Ready', { timeout: 60_000 });
  const tabs = embed.getByRole('tablist', { name: 'Panels' });
  await expect(tabs.getByRole('tab')).toHaveText([/^Problems/, /^Console/, /^Tests/]);
  // The strip starts folded to its tabs.
  await expect(embed.getByRole('tabpanel')).toHaveCount(0);

  // Reset data empties the app's data; Undo reset brings it back.
  await addTodo(embed, 'milk');
  await expect(preview(embed).getByText('1 left')).toBeVisible();
  await embed.getByRole('button', { name: 'Reset data' }).click();
  await expect(preview(embed).getByText('0 left')).toBeVisible({ timeout: 30_000 });
  await expect(preview(embed).getByText('milk', { exact: true })).toHaveCount(0);
  await expect(embed.getByRole('button', { name: 'Undo reset' })).toBeVisible();

  // A handler's console line shows in Console, and its location opens the server file at the line.
  await embed.getByLabel('File').selectOption('src/server/index.ts');
  await replaceEditorText(embed, (await editorText(embed)).replace("const rows = await ctx.db.table('todos').all();", "const rows = await ctx.db.table('todos').all();\n        console.log('listing', rows.length, 'todos');"));
  await tabs.getByRole('tab', { name: /^Console/ }).click();
  const listed = embed.locator('.console-line[data-source="server"]').filter({ hasText: 'listing 0 todos' }).first();
  await expect(listed).toBeVisible({ timeout: 60_000 });
  await expect(listed).toContainText('query todos.list');
  await embed.getByLabel('File').selectOption('app.manifest.json');
  await listed.getByRole('button', { name: /^src\/server\/index\.ts:13:\d+$/ }).click();
  await expect(embed.getByLabel('File')).toHaveValue('src/server/index.ts');
  await expect.poll(() => cursorLine(embed)).toBe(13);

  // The Tests run the project's tests, in sandboxes of their own.
  await tabs.getByRole('tab', { name: /^Tests/ }).click();
  await embed.getByRole('button', { name: 'Run all tests' }).click();
  await expect(embed.getByTestId('tests-summary')).toHaveText(/^6 passed, 0 failed/, { timeout: 60_000 });
  await expect(tabs.getByTestId('test-count')).toHaveText('6 passed');

  // A type error: Problems counts and lists it, marked in the editor; a click selects it there.
  await embed.getByLabel('File').selectOption('src/client/main.tsx');
  const text = `${await editorText(embed)}\n${TYPE_ERROR}\n`;
  const line = text.split('\n').indexOf(TYPE_ERROR) + 1;
  await replaceEditorText(embed, text);
  await expect(tabs.getByTestId('problem-count')).toHaveText('1', { timeout: 60_000 });
  await expect(embed.locator('.cm-lintRange-error')).toHaveCount(1);
  await tabs.getByRole('tab', { name: /^Problems/ }).click();
  const problem = embed.getByRole('tabpanel', { name: 'Problems' }).locator('.diagnostic-main');
  await expect(problem).toContainText("Type 'string' is not assignable to type 'number'");
  await embed.getByLabel('File').selectOption('src/server/index.ts');
  await problem.click();
  await expect(embed.getByLabel('File')).toHaveValue('src/client/main.tsx');
  await expect.poll(() => cursorLine(embed)).toBe(line);
  await expect(embed.locator('.cm-content')).toBeFocused();
  await testInfo.attach('embed: problems', { body: await embed.screenshot(), contentType: 'image/png' });

  // The strip folds back to its tabs.
  await embed.getByRole('button', { name: 'Collapse the panel' }).click();
  await expect(embed.getByRole('tabpanel')).toHaveCount(0);
  await embed.context().close();
});

test('a read-only embed shows the code highlighted with line numbers, takes no typing, runs its tests, and still shows and opens its problems', async ({ page, browser }, testInfo) => {
  const clean = await todoLink(page);
  // A second link of the same project with a type error in its client.
  await page.keyboard.press('Escape');
  await page.getByRole('treeitem', { name: 'main.tsx', exact: true }).click();
  const text = `${await editorText(page)}\n${TYPE_ERROR}\n`;
  await replaceEditorText(page, text);
  const brokenUrl = await shareLink(page, false);
  const broken = brokenUrl.slice(brokenUrl.indexOf('#'));

  const embed = await openEmbed(browser, 'embed=readonly', clean);
  await embed.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await expect(embed.getByTestId('compile-status')).toHaveText('Ready', { timeout: 60_000 });
  const code = embed.getByTestId('embed-code');
  const content = code.locator('.cm-content');
  await expect(content).toContainText("import { render } from 'preact';");
  // Highlighted: CodeMirror's token spans, and a gutter of line numbers.
  await expect.poll(() => content.locator('.cm-line span[class]').count()).toBeGreaterThan(10);
  await expect(code.locator('.cm-lineNumbers')).toBeVisible();
  await expect(content).toHaveAttribute('aria-readonly', 'true');
  await expect(content).toHaveAttribute('contenteditable', 'false');
  // Not editable: typing changes nothing. The keyboard reaches it, selects and copies.
  const before = await editorText(embed);
  await content.click();
  await expect(content).toBeFocused();
  await embed.keyboard.type('typed');
  await embed.keyboard.press('Enter');
  await embed.keyboard.press('Backspace');
  expect(await editorText(embed)).toBe(before);
  await embed.keyboard.press('ControlOrMeta+a');
  await embed.keyboard.press('ControlOrMeta+c');
  await expect.poll(() => embed.evaluate(() => navigator.clipboard.readText())).toBe(before);
  await testInfo.attach('embed: read-only', { body: await embed.screenshot(), contentType: 'image/png' });

  // The tests run too: in sandboxes of their own, on a copy of the files.
  const tabs = embed.getByRole('tablist', { name: 'Panels' });
  await tabs.getByRole('tab', { name: /^Tests/ }).click();
  await embed.getByRole('button', { name: 'Run all tests' }).click();
  await expect(embed.getByTestId('tests-summary')).toHaveText(/^6 passed, 0 failed/, { timeout: 60_000 });

  // A link with a type error: its problem shows, marked in the code, and a click selects the place.
  await embed.goto(`/?embed=readonly${broken}`);
  await expect(embed.getByTestId('compile-status')).toHaveText(/^Build failed/, { timeout: 60_000 });
  await expect(tabs.getByTestId('problem-count')).toHaveText('1', { timeout: 60_000 });
  await tabs.getByRole('tab', { name: /^Problems/ }).click();
  await embed.getByLabel('File').selectOption('src/server/index.ts');
  await embed.getByRole('tabpanel', { name: 'Problems' }).locator('.diagnostic-main').click();
  await expect(embed.getByLabel('File')).toHaveValue('src/client/main.tsx');
  await expect(code.locator('.cm-lintRange-error')).toHaveCount(1);
  await expect.poll(() => cursorLine(embed)).toBe(text.split('\n').indexOf(TYPE_ERROR) + 1);
  await testInfo.attach('embed: read-only, a problem', { body: await embed.screenshot(), contentType: 'image/png' });
  await embed.context().close();
});
