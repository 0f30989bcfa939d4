/**
 * The playground's layout (issue 17 item 4): a bottom panel that resizes, collapses and maximises, and
 * the layout (panel, its height and state, split view and its pair of personas, pane widths) restored on
 * reload; the narrow-screen layout; one theme for the whole page.
 */
import { expect, test, type Page, type TestInfo } from './profile';
import { openTemplate, preview } from './helpers';

test.describe.configure({ timeout: 120_000 });

async function shot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
  await page.screenshot({ path });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

const panel = (page: Page) => page.getByTestId('bottom-panel');
const height = async (page: Page) => Math.round((await panel(page).boundingBox())!.height);

test('the bottom panel resizes by drag and keyboard, collapses, maximises, and all of it is restored on reload', async ({ page }, testInfo) => {
  await openTemplate(page);
  const handle = page.getByRole('separator', { name: 'Resize the bottom panel' });
  const start = Number(await handle.getAttribute('aria-valuenow'));
  expect(await height(page)).toBe(start);

  // Dragging the handle up makes the panel taller.
  const box = (await handle.boundingBox())!;
  const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x, y - 60, { steps: 4 });
  await page.mouse.move(x, y - 120, { steps: 4 });
  await page.mouse.up();
  await expect(handle).toHaveAttribute('aria-valuenow', String(start + 120));
  expect(await height(page)).toBe(start + 120);
  // ArrowUp grows it, ArrowDown shrinks it.
  await handle.focus();
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Shift+ArrowDown');
  await expect(handle).toHaveAttribute('aria-valuenow', String(start + 80));
  const tall = start + 80;

  // The terminal shows, in the taller panel.
  await page.getByRole('tab', { name: 'Terminal' }).click();
  await shot(page, testInfo, 'taller panel, terminal');

  // Collapsed: only the tab bar is left, and the workspace takes the room.
  await page.getByRole('button', { name: 'Collapse the panel' }).click();
  await expect(panel(page)).toHaveAttribute('data-state', 'collapsed');
  await expect(handle).toBeHidden();
  expect(await height(page)).toBeLessThan(40);
  await expect(preview(page).getByRole('heading', { name: 'Todos' })).toBeVisible();
  await shot(page, testInfo, 'collapsed');
  // Choosing a panel opens it again, at its height.
  await page.getByRole('tab', { name: 'Events' }).click();
  await expect(panel(page)).toHaveAttribute('data-state', 'open');
  expect(await height(page)).toBe(tall);

  // Maximised: the panel takes the whole area under the toolbar; the preview keeps running, out of sight.
  await page.getByRole('button', { name: 'Maximise the panel' }).click();
  await expect(panel(page)).toHaveAttribute('data-state', 'maximised');
  const area = (await page.locator('.playground-main').boundingBox())!;
  expect(await height(page)).toBe(Math.round(area.height));
  await expect(page.getByRole('tree', { name: 'Files' })).toBeHidden();
  await shot(page, testInfo, 'maximised');

  await page.reload();
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
  await expect(panel(page)).toHaveAttribute('data-state', 'maximised');
  await expect(page.getByRole('tab', { name: 'Events' })).toHaveAttribute('aria-selected', 'true');
  await page.getByRole('button', { name: 'Restore the panel' }).click();
  await expect(panel(page)).toHaveAttribute('data-state', 'open');
  await expect(page.getByRole('separator', { name: 'Resize the bottom panel' })).toHaveAttribute('aria-valuenow', String(tall));
  expect(await height(page)).toBe(tall);
  await expect(page.getByRole('tree', { name: 'Files' })).toBeVisible();

  await page.getByRole('button', { name: 'Collapse the panel' }).click();
  await page.reload();
  await expect(panel(page)).toHaveAttribute('data-state', 'collapsed');
  await page.getByRole('button', { name: 'Expand the panel' }).click();
  expect(await height(page)).toBe(tall);
});

test('split view pairs the selected persona with the one chosen, and split, personas and pane widths are restored on reload', async ({ page }, testInfo) => {
  await openTemplate(page);
  const tree = page.getByRole('separator', { name: 'Resize the file tree' });
  const width = Number(await tree.getAttribute('aria-valuenow'));
  await tree.focus();
  await page.keyboard.press('Shift+ArrowRight');
  await expect(tree).toHaveAttribute('aria-valuenow', String(width + 50));

  await page.getByLabel('split').check();
  const second = page.getByLabel('Second preview as');
  await expect(second).toHaveValue('bob');
  await expect(second.locator('option')).toHaveText(['bob', 'guest']);
  await second.selectOption('guest');
  await expect(page.locator('.preview')).toHaveCount(2);
  await expect(page.locator('.preview').nth(0)).toHaveAttribute('data-persona', 'alice');
  await expect(page.locator('.preview').nth(1)).toHaveAttribute('data-persona', 'guest');
  await expect(preview(page, 1).getByRole('heading', { name: 'Todos' })).toBeVisible();
  await shot(page, testInfo, 'alice beside guest');

  // Selecting the persona that was the second pairs it with another: never the same persona twice.
  await page.getByRole('group', { name: 'Preview as' }).getByRole('button', { name: 'guest' }).click();
  await expect(page.locator('.preview').nth(0)).toHaveAttribute('data-persona', 'guest');
  await expect(page.locator('.preview').nth(1)).toHaveAttribute('data-persona', 'alice');
  await page.getByRole('group', { name: 'Preview as' }).getByRole('button', { name: 'alice' }).click();

  await page.reload();
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
  await expect(page.getByLabel('split')).toBeChecked();
  await expect(page.locator('.preview').nth(0)).toHaveAttribute('data-persona', 'alice');
  await expect(page.locator('.preview').nth(1)).toHaveAttribute('data-persona', 'guest');
  await expect(page.getByRole('separator', { name: 'Resize the file tree' })).toHaveAttribute('aria-valuenow', String(width + 50));
});

test.describe('1440 × 900', () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test('an empty Problems panel takes little room, split view shows both apps whole, and the dark theme darkens the preview pane', async ({ page }, testInfo) => {
    await openTemplate(page);
    await expect(page.getByText('No problems found')).toBeVisible({ timeout: 60_000 });
    // A panel with nothing to say: a fifth of the height at most (it was 260 px, 29%).
    expect(await height(page)).toBeLessThanOrEqual(900 / 5);
    await shot(page, testInfo, '1440 problems');
    // The person's own height is kept all the same.
    const handle = page.getByRole('separator', { name: 'Resize the bottom panel' });
    const start = Number(await handle.getAttribute('aria-valuenow'));
    await handle.focus();
    await page.keyboard.press('Shift+ArrowUp');
    await page.keyboard.press('Shift+ArrowUp');
    await expect(handle).toHaveAttribute('aria-valuenow', String(start + 100));
    await page.reload();
    await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
    expect(await height(page)).toBe(start + 100);

    // Split view: each app is whole in its frame (the todo form's Add button inside its card, nothing scrolled sideways).
    await page.getByLabel('split').check();
    for (const i of [0, 1]) {
      const app = preview(page, i);
      await expect(app.getByRole('heading', { name: 'Todos' })).toBeVisible();
      const frame = (await page.locator('iframe.preview-frame').nth(i).boundingBox())!;
      const card = (await app.locator('main').boundingBox())!;
      const add = (await app.getByRole('button', { name: 'Add' }).boundingBox())!;
      expect(add.x + add.width).toBeLessThanOrEqual(card.x + card.width);
      expect(card.x + card.width).toBeLessThanOrEqual(frame.x + frame.width);
      expect(await app.locator('html').evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    }
    await shot(page, testInfo, '1440 split light');

    // Dark: the pane, the stage and the frame around the app follow the theme (the app's page stays the app's).
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(page.locator('.toolbar')).toHaveCSS('background-color', DARK_PANEL);
    for (const selector of ['.previews', '.preview', '.preview-stage', '.preview-host', 'iframe.preview-frame'])
      expect([DARK_PANEL, 'rgba(0, 0, 0, 0)', 'rgb(46, 48, 56)'], selector).toContain(await background(page, selector));
    await shot(page, testInfo, '1440 split dark');
    await page.getByRole('group', { name: 'Preview size' }).getByRole('button', { name: /^Phone/ }).click();
    await expect(page.locator('.preview-stage.device').first()).toBeVisible();
    for (const selector of ['.preview-stage.device', '.preview-stage.device > .preview-host'])
      expect([DARK_PANEL, 'rgba(0, 0, 0, 0)', 'rgb(46, 48, 56)'], selector).toContain(await background(page, selector));
    await shot(page, testInfo, '1440 split phone dark');
  });
});

test.describe('390 px wide', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('no sideways scroll, Share reachable, and files, code and preview one at a time', async ({ page }, testInfo) => {
    await openTemplate(page);
    const scrollWidth = () => page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth));
    expect(await scrollWidth()).toBeLessThanOrEqual(390);
    await shot(page, testInfo, 'narrow code');

    const share = page.getByRole('button', { name: 'Share…' });
    await expect(share).toBeInViewport({ ratio: 1 });
    await share.click();
    const dialog = page.locator('.share-dialog');
    await expect(dialog).toBeVisible();
    const box = (await dialog.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await scrollWidth()).toBeLessThanOrEqual(390);
    await shot(page, testInfo, 'narrow share');
    await share.click();

    // A template opens on its preview.
    const views = page.getByRole('tablist', { name: 'Workspace' });
    await expect(views.getByRole('tab', { name: 'Preview' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.locator('iframe.preview-frame')).toBeInViewport();
    await expect(preview(page).getByRole('heading', { name: 'Todos' })).toBeVisible();

    // The header is one row: the brand, the project's title and its actions side by side.
    const header = (await page.locator('.topbar').boundingBox())!;
    const row = (await page.getByRole('button', { name: /theme$/ }).boundingBox())!;
    expect(header.height).toBeLessThan(2 * row.height + 12);
    await expect(page.getByRole('button', { name: /theme$/ })).toBeInViewport({ ratio: 1 });
    await expect(page.getByRole('heading', { name: 'Platform Playground' })).toBeAttached();

    // Every panel tab is on screen (the tab bar wraps instead of cutting the tabs off).
    for (const name of ['Problems', 'Console', 'Tests', 'Events', 'Data', 'Deploy', 'Terminal'])
      await expect(page.getByRole('tablist', { name: 'Panels' }).getByRole('tab', { name: new RegExp(`^${name}`) })).toBeInViewport({ ratio: 1 });
    await expect(page.getByRole('button', { name: 'Collapse the panel' })).toBeInViewport({ ratio: 1 });

    await views.getByRole('tab', { name: 'Code' }).click();
    await expect(page.locator('.cm-content')).toBeInViewport();
    await expect(page.getByRole('tree', { name: 'Files' })).toBeHidden();

    await views.getByRole('tab', { name: 'Files' }).click();
    await expect(page.getByRole('tree', { name: 'Files' })).toBeVisible();
    await expect(page.locator('.cm-content')).toBeHidden();
    await shot(page, testInfo, 'narrow files');
    // Choosing a file shows it in the editor.
    await page.getByRole('treeitem', { name: 'index.ts' }).click();
    await expect(views.getByRole('tab', { name: 'Code' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('tab', { name: /index\.ts/ })).toHaveAttribute('aria-selected', 'true');
    await expect(page.locator('.cm-content')).toBeInViewport();

    await views.getByRole('tab', { name: 'Preview' }).click();
    await expect(page.locator('iframe.preview-frame')).toBeInViewport();
    await expect(preview(page).getByRole('heading', { name: 'Todos' })).toBeVisible();
    await preview(page).getByLabel('New todo').fill('milk');
    await preview(page).getByRole('button', { name: 'Add' }).click();
    await expect(preview(page).getByText('1 left')).toBeVisible();
    expect(await scrollWidth()).toBeLessThanOrEqual(390);
    await shot(page, testInfo, 'narrow preview');
  });

  test('the gallery fits', async ({ page }, testInfo) => {
    await page.goto('/');
    await expect(page.locator('[data-template="todo"]')).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, testInfo, 'narrow gallery');
  });
});

test('the todo preview does not move when its account line arrives: its place is kept from the first paint', async ({ page }) => {
  // In every frame (the preview's too): the top of the todo form each time the page changes, from its
  // first render on, while the frame is laid out. A frame loaded ahead waits hidden and moves in: its
  // app can render before the page has given it a size (a viewport of 0 x 0, every box at 0), and
  // nothing of that is painted.
  await page.addInitScript(() => {
    const tops: number[] = [];
    (window as unknown as { formTops: number[] }).formTops = tops;
    new MutationObserver(() => {
      const form = document.querySelector('main form');
      if (!form || innerWidth === 0 || innerHeight === 0) return;
      const box = form.getBoundingClientRect();
      if (box.width > 0) tops.push(Math.round(box.top));
    }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  await openTemplate(page);
  await expect(preview(page).getByRole('button', { name: 'Sign out' })).toBeVisible();
  const tops = await preview(page).locator('html').evaluate(() => (window as unknown as { formTops: number[] }).formTops);
  expect(tops.length).toBeGreaterThan(0);
  expect(new Set(tops).size, `the form's top as the page changed: ${tops.join(', ')}`).toBe(1);
});

const DARK_PANEL = 'rgb(29, 31, 36)';
const LIGHT_PANEL = 'rgb(255, 255, 255)';
const background = (page: Page, selector: string) => page.locator(selector).first().evaluate((el) => getComputedStyle(el).backgroundColor);

/** The backgrounds of the page's parts: header, toolbar, bottom panel, file tree, editor. */
async function chrome(page: Page): Promise<Record<string, string>> {
  return {
    header: await background(page, '.topbar'),
    toolbar: await background(page, '.toolbar'),
    panel: await background(page, '.bottom-panels'),
    tree: await background(page, '[role="tree"]'),
    body: await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor),
  };
}

test('one theme for the whole page: the system\'s until toggled, then the choice, kept', async ({ page }, testInfo) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/');
  await expect(page.locator('[data-template="todo"]')).toBeVisible();
  expect(await background(page, '.template-card')).toBe(DARK_PANEL);
  expect(await background(page, '.topbar')).toBe(DARK_PANEL);
  await shot(page, testInfo, 'gallery dark');
  await page.locator('[data-template="todo"]').click();
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
  const dark = await chrome(page);
  expect(dark).toMatchObject({ header: DARK_PANEL, toolbar: DARK_PANEL, panel: DARK_PANEL, body: 'rgb(21, 22, 26)' });
  expect(await background(page, '.cm-editor')).toBe('rgb(24, 25, 29)');
  await shot(page, testInfo, 'dark 1280');

  // Following the system while nothing is chosen.
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(page.locator('.topbar')).toHaveCSS('background-color', LIGHT_PANEL);
  expect(await chrome(page)).toMatchObject({ header: LIGHT_PANEL, toolbar: LIGHT_PANEL, panel: LIGHT_PANEL });
  await shot(page, testInfo, 'light 1280');

  // Toggled to dark with the system light: everything is dark, the editor too, and it stays after a reload.
  await page.getByRole('button', { name: / theme$/ }).click();
  await expect(page.locator('.topbar')).toHaveCSS('background-color', DARK_PANEL);
  expect(await chrome(page)).toMatchObject({ header: DARK_PANEL, toolbar: DARK_PANEL, panel: DARK_PANEL, tree: dark.tree });
  await expect(page.locator('.cm-editor')).toHaveCSS('background-color', 'rgb(24, 25, 29)');
  await page.reload();
  await expect(page.locator('.toolbar')).toHaveCSS('background-color', DARK_PANEL);

  // Toggled to light with the system dark: no dark chrome around a light editor.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.getByRole('button', { name: / theme$/ }).click();
  await expect(page.locator('.topbar')).toHaveCSS('background-color', LIGHT_PANEL);
  expect(await chrome(page)).toMatchObject({ header: LIGHT_PANEL, toolbar: LIGHT_PANEL, panel: LIGHT_PANEL, body: 'rgb(247, 247, 249)' });
  await expect(page.locator('.cm-editor')).not.toHaveCSS('background-color', 'rgb(24, 25, 29)');

  // The page of a project open in another tab follows the theme too.
  await page.getByRole('button', { name: / theme$/ }).click();
  const second = await page.context().newPage();
  await second.emulateMedia({ colorScheme: 'light' });
  await second.goto(page.url());
  await expect(second.getByTestId('lease-held')).toBeVisible();
  expect(await second.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe('rgb(21, 22, 26)');
  await expect(second.getByTestId('lease-held')).toHaveCSS('color', 'rgb(232, 233, 238)');
  await testInfo.attach('held dark', { body: await second.screenshot(), contentType: 'image/png' });
});

test.describe('390 px wide, dark', () => {
  test.use({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
  test('the narrow layout is dark throughout', async ({ page }, testInfo) => {
    await openTemplate(page);
    expect(await chrome(page)).toMatchObject({ header: DARK_PANEL, toolbar: DARK_PANEL, panel: DARK_PANEL });
    await shot(page, testInfo, 'narrow dark');
  });
});

test('after creating a file typing goes into it; Mod-Enter runs the tests from the file tree; lines wrap by a toggle that is kept; "?" lists the shortcuts', async ({ page }, testInfo) => {
  await openTemplate(page);
  await page.getByRole('button', { name: 'New file', exact: true }).click();
  await page.getByRole('textbox', { name: 'New file name' }).fill('notes.md');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('tab', { name: /notes\.md/ })).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('.cm-content')).toBeFocused();
  await page.keyboard.type('typed where it belongs');
  await expect(page.locator('.cm-content')).toHaveText('typed where it belongs');

  // Mod-Enter with the focus on a row of the file tree runs the tests.
  await page.getByRole('treeitem', { name: 'index.ts' }).click();
  await page.getByRole('treeitem', { name: 'index.ts' }).focus();
  await page.keyboard.press('ControlOrMeta+Enter');
  await expect(page.getByRole('tab', { name: /Tests/ })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('test-count')).toBeVisible({ timeout: 60_000 });

  // Wrap: a long line fits the editor's width instead of scrolling sideways.
  await page.getByRole('treeitem', { name: 'main.tsx' }).click();
  const scroller = page.locator('.cm-scroller');
  const overflows = () => scroller.evaluate((el) => el.scrollWidth > el.clientWidth);
  await expect.poll(overflows).toBe(true);
  await page.getByLabel('wrap lines').check();
  await expect.poll(overflows).toBe(false);
  await shot(page, testInfo, 'wrapped');
  await page.reload();
  await expect(page.getByLabel('wrap lines')).toBeChecked();
  await expect.poll(overflows).toBe(false);

  // "?" on the page (not in the editor) opens the list; Escape closes it.
  await page.locator('.cm-content').click();
  await page.keyboard.type('?');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeHidden();
  await page.keyboard.press('ControlOrMeta+z');
  await page.getByRole('treeitem', { name: 'main.tsx' }).focus();
  await page.keyboard.press('?');
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Run the tests');
  await expect(dialog).toContainText('Search and replace');
  await shot(page, testInfo, 'shortcuts');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await page.getByRole('button', { name: 'Shortcuts' }).click();
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
});
