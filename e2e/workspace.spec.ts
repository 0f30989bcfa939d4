/**
 * The workspace components (src/ui/workspace) in their harness (harness/workspace.html): a file tree,
 * tabs, the CodeMirror editor and split panes over the base app, checked by the compiler worker.
 */
import { expect, test, type Page, type TestInfo } from './profile';

const HARNESS = '/harness/workspace.html';

interface HarnessDebug {
  files(): Record<string, string>;
  saves: number;
  runs: number;
  lastSavePrevented: boolean | undefined;
}

/**
 * Opens the harness; with `compiled`, waits for the first check, after which the worker holds the
 * project's files for completions and hover. Tests of the UI alone run without the compiler worker.
 */
async function openHarness(page: Page, { compiled = true } = {}): Promise<string[]> {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(compiled ? HARNESS : `${HARNESS}?compiler=off`);
  if (compiled) await expect(page.getByTestId('compile-status')).toHaveText('No problems', { timeout: 30_000 });
  else await expect(page.getByRole('textbox', { name: 'src/client/main.tsx' })).toBeVisible();
  return errors;
}

async function shot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const body = await page.screenshot({ path: testInfo.outputPath(`${name}.png`) });
  await testInfo.attach(name, { body, contentType: 'image/png' });
}

function files(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => (globalThis as unknown as { __workspace: HarnessDebug }).__workspace.files());
}

function debug(page: Page): Promise<Omit<HarnessDebug, 'files'>> {
  return page.evaluate(() => {
    const w = (globalThis as unknown as { __workspace: HarnessDebug }).__workspace;
    return { saves: w.saves, runs: w.runs, lastSavePrevented: w.lastSavePrevented };
  });
}

/** Puts the caret at the end of the first editor line containing `text`. */
async function caretAtEndOf(page: Page, text: string): Promise<void> {
  await page.locator('.cm-line', { hasText: text }).first().click();
  await page.keyboard.press('End');
}

/** Moves the pointer over the middle of the first occurrence of `text` in the editor. */
async function hoverText(page: Page, text: string): Promise<void> {
  const point = await page.evaluate((needle) => {
    const walker = document.createTreeWalker(document.querySelector('.cm-content')!, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const index = node.textContent!.indexOf(needle);
      if (index < 0) continue;
      const range = document.createRange();
      range.setStart(node, index + 2);
      range.setEnd(node, index + 3);
      const box = range.getBoundingClientRect();
      return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    }
    return undefined;
  }, text);
  expect(point, `"${text}" is on screen`).toBeDefined();
  await page.mouse.move(point!.x, point!.y);
}

test('typing updates the file; Mod-s saves without the browser dialog; Mod-Enter runs tests', async ({ page }, testInfo) => {
  const errors = await openHarness(page, { compiled: false });
  const editor = page.getByRole('textbox', { name: 'src/client/main.tsx' });
  await expect(editor).toBeVisible();
  await caretAtEndOf(page, "render(<App />, document.getElementById('app')!);");
  await page.keyboard.press('Enter');
  await page.keyboard.type('// edited in the workspace');
  await expect.poll(async () => (await files(page))['src/client/main.tsx']).toContain('\n// edited in the workspace');
  const tab = page.getByRole('tab', { name: 'src/client/main.tsx (unsaved)' });
  await expect(tab).toHaveAttribute('aria-selected', 'true');
  await shot(page, testInfo, 'edited (unsaved dot)');

  await page.keyboard.press('ControlOrMeta+s');
  await expect(page.getByTestId('saves')).toHaveText('Saved 1×');
  expect((await debug(page)).lastSavePrevented).toBe(true);
  await expect(page.getByRole('tab', { name: 'src/client/main.tsx', exact: true })).toBeVisible();

  // Outside the editor, the page-level handler saves and prevents the dialog too.
  await page.getByRole('treeitem', { name: 'text.ts' }).focus();
  await page.keyboard.press('ControlOrMeta+s');
  await expect(page.getByTestId('saves')).toHaveText('Saved 2×');
  expect((await debug(page)).lastSavePrevented).toBe(true);

  await editor.focus();
  await page.keyboard.press('ControlOrMeta+Enter');
  await expect(page.getByTestId('runs')).toHaveText('Test runs 1');
  // Mod-Enter ran the tests instead of inserting a line.
  expect((await files(page))['src/client/main.tsx']).toMatch(/\/\/ edited in the workspace\n$/);
  await shot(page, testInfo, 'saved');
  expect(errors).toEqual([]);
});

test('a type error is shown inline and goes away when fixed', async ({ page }, testInfo) => {
  await openHarness(page);
  await caretAtEndOf(page, "useQuery('todos.list'");
  // From the end of `  const { data } = useQuery('todos.list', {});` to just after `lis`.
  for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowLeft');
  await page.keyboard.type('s');
  await expect.poll(async () => (await files(page))['src/client/main.tsx']).toContain("useQuery('todos.lisst'");
  const marked = page.locator('.cm-lintRange-error');
  await expect(marked.first()).toBeVisible({ timeout: 20_000 });
  await expect(marked.first()).toContainText('todos.lisst');
  await marked.first().hover();
  const tooltip = page.locator('.cm-tooltip-lint');
  await expect(tooltip).toContainText('DG1205');
  await expect(tooltip).toContainText('todos.lisst');
  await shot(page, testInfo, 'inline type error');

  await page.mouse.move(0, 0);
  await page.keyboard.press('Backspace');
  await expect(page.getByTestId('compile-status')).toHaveText('No problems', { timeout: 20_000 });
  await expect(marked).toHaveCount(0);
  await shot(page, testInfo, 'fixed');
});

test('TypeScript completions and hover come from the compiler worker', async ({ page }, testInfo) => {
  await openHarness(page);
  await page.getByRole('treeitem', { name: 'index.ts' }).click();
  await expect(page.getByRole('textbox', { name: 'src/server/index.ts' })).toBeVisible();
  await caretAtEndOf(page, 'return rows.map(');
  await page.keyboard.press('Enter');
  await page.keyboard.type("ctx.db.table('todos').");
  const list = page.locator('.cm-tooltip-autocomplete');
  await expect(list.getByRole('option', { name: 'find' })).toBeVisible({ timeout: 15_000 });
  await shot(page, testInfo, 'member completions');
  await page.keyboard.type('fi');
  await expect(list.getByRole('option')).toHaveText([/^find/, /^first/]);
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await files(page))['src/server/index.ts']).toContain("ctx.db.table('todos').find");

  await page.keyboard.press('Escape');
  // Shift-Alt-f formats TypeScript with TypeScript's formatter, in the worker.
  await page.keyboard.type('({   where:{done:true}})');
  await page.keyboard.press('Shift+Alt+f');
  await expect.poll(async () => (await files(page))['src/server/index.ts']).toContain("ctx.db.table('todos').find({ where: { done: true } })");
  await hoverText(page, 'rows.map(');
  const info = page.getByTestId('quickinfo');
  await expect(info).toBeVisible({ timeout: 15_000 });
  await expect(info).toContainText('const rows: {');
  await expect(info).toContainText('title: string;');
  await shot(page, testInfo, 'hover');
});

test('the manifest gets completions from its JSON Schema', async ({ page }, testInfo) => {
  await openHarness(page, { compiled: false });
  await page.getByRole('treeitem', { name: 'app.manifest.json' }).click();
  await expect(page.getByRole('textbox', { name: 'app.manifest.json' })).toBeVisible();
  // The base app has every common property; "budgets" is one it lacks.
  await caretAtEndOf(page, '"format": "platform.application-source.v0",');
  await page.keyboard.press('Enter');
  await page.keyboard.type('"bud');
  const option = page.locator('.cm-tooltip-autocomplete').getByRole('option', { name: /budgets/ });
  // The schema's completions load on first use of the manifest: typed before they arrived, the
  // letters offer nothing yet, so ask for completions (Ctrl-Space) until they are there.
  await expect(async () => {
    if (!(await option.isVisible())) await page.keyboard.press('Control+Space');
    await expect(option).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await shot(page, testInfo, 'manifest completion');
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await files(page))['app.manifest.json']).toContain('"budgets"');

  // Shift-Alt-f re-indents JSON with 2 spaces (once it parses).
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('{"format":"platform.application-source.v0",  "name":"todo-app"}');
  await page.keyboard.press('Shift+Alt+f');
  await expect.poll(async () => (await files(page))['app.manifest.json']).toBe('{\n  "format": "platform.application-source.v0",\n  "name": "todo-app"\n}\n');
});

test('the file tree creates, renames and deletes files and folders, and refuses bad names', async ({ page }, testInfo) => {
  await openHarness(page, { compiled: false });
  const tree = page.getByRole('tree', { name: 'Files' });
  const error = page.getByTestId('tree-error');

  // New file next to the selected one (src/client/main.tsx).
  await page.getByRole('button', { name: 'New file', exact: true }).click();
  const name = page.getByRole('textbox', { name: 'New file name' });
  for (const [bad, message] of [
    ['../escape.ts', '“..” and “.” are not allowed'],
    ['/abs.ts', 'cannot start with “/”'],
    ['a//b.ts', 'empty segment'],
    ['main.tsx', 'already exists'],
    ['', 'Enter a name'],
  ] as const) {
    await name.fill(bad);
    await name.press('Enter');
    await expect(error).toContainText(message);
  }
  await shot(page, testInfo, 'refused name');
  await name.fill('util.ts');
  await name.press('Enter');
  await expect(tree.getByRole('treeitem', { name: 'util.ts' })).toBeVisible();
  expect(Object.keys(await files(page))).toContain('src/client/util.ts');
  await expect(page.getByRole('tab', { name: 'src/client/util.ts' })).toHaveAttribute('aria-selected', 'true');

  // A new folder is a placeholder until a file is created in it.
  await tree.getByRole('treeitem', { name: 'util.ts' }).click();
  await page.getByRole('button', { name: 'New folder', exact: true }).click();
  await page.getByRole('textbox', { name: 'New folder name' }).fill('lib');
  await page.getByRole('textbox', { name: 'New folder name' }).press('Enter');
  const lib = tree.getByRole('treeitem', { name: 'lib (empty folder)' });
  await expect(lib).toBeVisible();
  await shot(page, testInfo, 'empty folder');
  await lib.locator('.ws-tree-row').first().hover();
  await page.getByRole('button', { name: 'New file in src/client/lib' }).click();
  await page.getByRole('textbox', { name: 'New file name' }).fill('index.ts');
  await page.getByRole('textbox', { name: 'New file name' }).press('Enter');
  await expect(tree.getByRole('treeitem', { name: 'lib', exact: true })).toBeVisible();
  expect(Object.keys(await files(page))).toContain('src/client/lib/index.ts');

  // Rename a file (F2), refusing a taken name first.
  await tree.getByRole('treeitem', { name: 'util.ts' }).click();
  await page.keyboard.press('F2');
  const rename = page.getByRole('textbox', { name: 'Rename src/client/util.ts' });
  await rename.fill('main.tsx');
  await rename.press('Enter');
  await expect(error).toContainText('A file named “src/client/main.tsx” already exists.');
  await rename.fill('helpers.ts');
  await rename.press('Enter');
  await expect(tree.getByRole('treeitem', { name: 'helpers.ts' })).toBeVisible();
  let paths = Object.keys(await files(page));
  expect(paths).toContain('src/client/helpers.ts');
  expect(paths).not.toContain('src/client/util.ts');
  await expect(page.getByRole('tab', { name: 'src/client/helpers.ts' })).toBeVisible();

  // Rename a folder: every file under it moves.
  await tree.getByRole('treeitem', { name: 'lib', exact: true }).focus();
  await page.keyboard.press('F2');
  const renameFolder = page.getByRole('textbox', { name: 'Rename src/client/lib' });
  await renameFolder.fill('lib/inner');
  await renameFolder.press('Enter');
  await expect(error).toContainText('cannot be moved into itself');
  await renameFolder.fill('tools');
  await renameFolder.press('Enter');
  paths = Object.keys(await files(page));
  expect(paths).toContain('src/client/tools/index.ts');
  expect(paths.some((p) => p.startsWith('src/client/lib/'))).toBe(false);
  await shot(page, testInfo, 'renamed');

  // Delete a file: the confirmation is in the tree; cancel keeps it.
  const helpers = tree.getByRole('treeitem', { name: 'helpers.ts' });
  await helpers.locator('.ws-tree-row').hover();
  await page.getByRole('button', { name: 'Delete src/client/helpers.ts' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete src/client/helpers.ts?' });
  await expect(confirm).toContainText('Delete “src/client/helpers.ts”?');
  await shot(page, testInfo, 'confirm delete');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(helpers).toBeVisible();
  await helpers.focus();
  await page.keyboard.press('Delete');
  await page.getByRole('alertdialog', { name: 'Delete src/client/helpers.ts?' }).getByRole('button', { name: 'Delete' }).click();
  await expect(helpers).toHaveCount(0);
  expect(Object.keys(await files(page))).not.toContain('src/client/helpers.ts');
  await expect(page.getByRole('tab', { name: 'src/client/helpers.ts' })).toHaveCount(0);

  // Delete a folder with its files.
  const tools = tree.getByRole('treeitem', { name: 'tools', exact: true });
  await tools.locator('.ws-tree-row').first().hover();
  await page.getByRole('button', { name: 'Delete src/client/tools' }).click();
  const confirmFolder = page.getByRole('alertdialog', { name: 'Delete src/client/tools?' });
  await expect(confirmFolder).toContainText('the folder “src/client/tools” and its 1 file');
  await confirmFolder.getByRole('button', { name: 'Delete' }).click();
  await expect(tools).toHaveCount(0);
  expect(Object.keys(await files(page)).some((p) => p.startsWith('src/client/tools/'))).toBe(false);
  await shot(page, testInfo, 'deleted');

  // Keyboard: arrows move, Left folds, Right goes into an open folder, Enter opens a file.
  await tree.getByRole('treeitem', { name: 'main.tsx' }).focus();
  await page.keyboard.press('ArrowUp');
  const client = tree.getByRole('treeitem', { name: 'client', exact: true });
  await expect(client).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(client).toHaveAttribute('aria-expanded', 'false');
  await page.keyboard.press('ArrowDown');
  await expect(tree.getByRole('treeitem', { name: 'server', exact: true })).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('tab', { name: 'src/server/index.ts' })).toHaveAttribute('aria-selected', 'true');
});

test('tabs open, switch by keyboard and close; undo history survives switching', async ({ page }, testInfo) => {
  await openHarness(page, { compiled: false });
  const tree = page.getByRole('tree', { name: 'Files' });
  await caretAtEndOf(page, "import { clean } from '../shared/text';");
  await page.keyboard.type(' // mark');
  await tree.getByRole('treeitem', { name: 'text.ts' }).click();
  await tree.getByRole('treeitem', { name: 'todos.test.ts' }).click();
  const tabs = page.getByRole('tablist', { name: 'Open files' }).getByRole('tab');
  await expect(tabs).toHaveCount(3);
  await expect(page.getByRole('tab', { name: 'tests/todos.test.ts' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('textbox', { name: 'tests/todos.test.ts' })).toBeVisible();
  await shot(page, testInfo, 'three tabs');

  await page.getByRole('tab', { name: 'tests/todos.test.ts' }).focus();
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('tab', { name: 'src/shared/text.ts' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('tab', { name: 'src/shared/text.ts' })).toBeFocused();
  await page.keyboard.press('Delete');
  await expect(tabs).toHaveCount(2);
  // The pointer's close mark (hidden from assistive technology: Delete on the tab is the keyboard's way).
  await page.locator('.ws-tab[title="tests/todos.test.ts"] .ws-tab-close').click();
  await expect(tabs).toHaveCount(1);

  // Back on main.tsx, undo removes what was typed before switching away.
  const main = page.getByRole('textbox', { name: 'src/client/main.tsx' });
  await expect(main).toBeVisible();
  expect((await files(page))['src/client/main.tsx']).toContain("'../shared/text'; // mark");
  await main.focus();
  await page.keyboard.press('ControlOrMeta+z');
  await expect.poll(async () => (await files(page))['src/client/main.tsx']).not.toContain('// mark');
  await shot(page, testInfo, 'after closing tabs and undo');
});

test('split panes resize by drag and by keyboard, and the size persists', async ({ page }, testInfo) => {
  await page.goto(`${HARNESS}?compiler=off`);
  await page.evaluate(() => localStorage.clear());
  await openHarness(page, { compiled: false });
  const handle = page.getByRole('separator', { name: 'Resize the file tree' });
  const before = Number(await handle.getAttribute('aria-valuenow'));
  const box = (await handle.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + 60, box.y + box.height / 2, { steps: 4 });
  await page.mouse.move(box.x + 100, box.y + box.height / 2, { steps: 4 });
  await page.mouse.up();
  await expect(handle).toHaveAttribute('aria-valuenow', String(before + 100));
  const tree = (await page.getByRole('tree', { name: 'Files' }).boundingBox())!;
  expect(Math.round(tree.width)).toBe(before + 100);
  await shot(page, testInfo, 'dragged wider');

  await handle.focus();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expect(handle).toHaveAttribute('aria-valuenow', String(before + 80));
  await page.keyboard.press('Shift+ArrowLeft');
  await expect(handle).toHaveAttribute('aria-valuenow', String(before + 30));

  const problems = page.getByRole('separator', { name: 'Resize the problems panel' });
  const height = Number(await problems.getAttribute('aria-valuenow'));
  await problems.focus();
  await page.keyboard.press('ArrowUp');
  await expect(problems).toHaveAttribute('aria-valuenow', String(height - 10));

  await page.reload();
  await expect(page.getByRole('separator', { name: 'Resize the file tree' })).toHaveAttribute('aria-valuenow', String(before + 30));
  await expect(page.getByRole('separator', { name: 'Resize the problems panel' })).toHaveAttribute('aria-valuenow', String(height - 10));
});

test('the dark theme toggles', async ({ page }, testInfo) => {
  await openHarness(page, { compiled: false });
  const root = page.locator('.ws');
  await expect(root).toHaveAttribute('data-theme', 'light');
  const light = await page.locator('.cm-editor').evaluate((el) => getComputedStyle(el).backgroundColor);
  await shot(page, testInfo, 'light');
  const toggle = page.getByRole('button', { name: 'Dark theme' });
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect(root).toHaveAttribute('data-theme', 'dark');
  const dark = await page.locator('.cm-editor').evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(dark).not.toBe(light);
  expect(dark).toBe('rgb(24, 25, 29)');
  // One Dark's syntax colours: keywords are violet.
  const keyword = await page.locator('.cm-line').first().locator('span').first().evaluate((el) => getComputedStyle(el).color);
  expect(keyword).toBe('rgb(198, 120, 221)');
  await shot(page, testInfo, 'dark');
  await toggle.click();
  await expect(root).toHaveAttribute('data-theme', 'light');
});

test('the editor says how to leave it by keyboard (Tab indents there), and Escape then Tab does leave it', async ({ page }, testInfo) => {
  await openHarness(page, { compiled: false });
  const editor = page.getByRole('textbox', { name: 'src/client/main.tsx' });
  const hint = page.getByText('Tab indents. To leave the editor: Esc, then Tab.');
  // Said only while the editor has focus, and tied to it for screen readers.
  await expect(hint).toBeHidden();
  await editor.focus();
  await expect(hint).toBeVisible();
  const describedBy = await editor.getAttribute('aria-describedby');
  expect(describedBy).toBeTruthy();
  await expect(page.locator(`[id="${describedBy}"]`)).toHaveText('Tab indents. To leave the editor: Esc, then Tab.');
  await shot(page, testInfo, 'editor-leave-hint');
  // Tab indents: focus stays in the editor.
  await page.keyboard.press('Tab');
  await expect(editor).toBeFocused();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Tab');
  await expect(editor).not.toBeFocused();
  await expect(hint).toBeHidden();
});
