/**
 * Editing rows in the Data panel (issue 17, item 6): a row is changed through the runtime as a chosen
 * persona, with the table API and policy the app's own mutations get. A write the policy refuses
 * shows the runtime's code and message and changes nothing; a value the field's type refuses is
 * refused before anything is sent; the grid and the previews show what was written.
 */
import { expect, test, type Page } from './profile';
import { afterRebuild, openTemplate, preview, replaceFile } from './helpers';
import { addTodo, dataView } from './share-helpers';

// Each test starts the compiler worker (esbuild-wasm and TypeScript) in a fresh page, on 2 cores.
test.describe.configure({ timeout: 120_000 });

const rowsOf = (page: Page, table: string) => page.getByRole('table', { name: `Rows of ${table}` });
const editor = (page: Page) => page.getByRole('form', { name: /^Edit / });

test('an owner’s edit goes through the ownedTable policy: alice’s row changes as alice, and bob’s attempt is refused and changes nothing', async ({ page }, testInfo) => {
  await openTemplate(page);
  await addTodo(page, 'milk');
  await dataView(page, 'Tables');
  const rows = rowsOf(page, 'todos');
  await expect(rows.getByRole('cell', { name: 'milk', exact: true })).toBeVisible();

  // As alice (the preview's persona): title and done, typed.
  await rows.getByRole('button', { name: /^Edit todos\// }).click();
  await expect(editor(page).getByLabel('Edit as')).toHaveValue('alice');
  await editor(page).getByRole('textbox', { name: 'title', exact: true }).fill('oat milk');
  await editor(page).getByRole('combobox', { name: 'done', exact: true }).selectOption('true');
  await page.screenshot({ path: testInfo.outputPath('editor.png') });
  await editor(page).getByRole('button', { name: 'Save as alice' }).click();
  await expect(page.getByTestId('edit-saved')).toContainText('Saved title, done of todos/');
  await expect(rows.getByRole('cell', { name: 'oat milk', exact: true })).toBeVisible();
  await expect(rows.getByRole('cell', { name: 'true', exact: true })).toBeVisible();
  // The preview shows it (this app has no live updates: the previews load again).
  await expect(preview(page).getByText('oat milk', { exact: true })).toBeVisible({ timeout: 20_000 });
  await expect(preview(page).getByText('0 left')).toBeVisible();

  // As bob, alice's row does not exist: the runtime's error, and nothing changes.
  await rows.getByRole('button', { name: /^Edit todos\// }).click();
  await editor(page).getByLabel('Edit as').selectOption('bob');
  await editor(page).getByRole('textbox', { name: 'title', exact: true }).fill('stolen');
  await editor(page).getByRole('button', { name: 'Save as bob' }).click();
  const refused = page.getByTestId('edit-refused');
  await expect(refused).toHaveAttribute('data-code', 'operation_failed');
  await expect(refused).toContainText(/operation_failed: Record not found: todos\/\S+/);
  await page.screenshot({ path: testInfo.outputPath('refused.png') });
  await page.locator('.data-views').getByRole('button', { name: 'Refresh' }).click();
  await expect(rows.getByRole('cell', { name: 'oat milk', exact: true })).toBeVisible();
  await expect(rows.getByRole('cell', { name: 'stolen', exact: true })).toHaveCount(0);
  await expect(preview(page).getByText('oat milk', { exact: true })).toBeVisible();
});

test('values are typed by the declared field: a number field refuses "abc" before anything is sent; a double-clicked cell is edited', async ({ page }) => {
  await openTemplate(page);
  await addTodo(page, 'milk');
  // A number field, added to the manifest (the row is kept).
  await afterRebuild(page, () => replaceFile(page, 'app.manifest.json', (text) => text.replace('"title": {', '"points": { "type": "number", "optional": true },\n          "title": {')));
  await dataView(page, 'Tables');
  const rows = rowsOf(page, 'todos');
  await expect(rows.getByRole('columnheader', { name: 'points' })).toBeVisible({ timeout: 20_000 });
  const milk = rows.getByRole('row').filter({ has: page.getByRole('cell', { name: 'milk', exact: true }) });
  await milk.getByRole('cell', { name: 'null', exact: true }).dblclick();
  const points = editor(page).getByRole('textbox', { name: 'points', exact: true });
  await expect(points).toBeFocused();
  await points.fill('abc');
  await editor(page).getByRole('button', { name: 'Save as alice' }).click();
  await expect(page.getByTestId('edit-invalid')).toHaveText('points is a number field: "abc" is not a number.');
  await expect(points).toHaveAttribute('aria-invalid', 'true');
  await points.fill('3');
  await editor(page).getByRole('button', { name: 'Save as alice' }).click();
  await expect(page.getByTestId('edit-saved')).toContainText('Saved points of todos/');
  await expect(milk.getByRole('cell', { name: '3', exact: true })).toBeVisible();
});

test('under the workspaceTable policy, bob edits a team card and alice’s preview updates live; moving it into alice’s own workspace is refused', async ({ page }) => {
  await openTemplate(page, 'team-board');
  await preview(page).getByLabel('New card').fill('plan');
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText('plan', { exact: true })).toBeVisible();
  // Typed and not sent: still there afterwards shows the preview was not loaded again.
  await preview(page).getByLabel('New card').fill('draft');

  await dataView(page, 'Tables');
  const rows = rowsOf(page, 'cards');
  await rows.getByRole('button', { name: /^Edit cards\// }).click();
  await editor(page).getByLabel('Edit as').selectOption('bob');
  await editor(page).getByRole('textbox', { name: 'title', exact: true }).fill('plan b');
  await editor(page).getByRole('button', { name: 'Save as bob' }).click();
  await expect(page.getByTestId('edit-saved')).toContainText('Saved title of cards/');
  await expect(rows.getByRole('cell', { name: 'plan b', exact: true })).toBeVisible();
  // Alice's list was refreshed by the live-update stream, as after another person's mutation.
  await expect(preview(page).getByText('plan b', { exact: true })).toBeVisible({ timeout: 20_000 });
  await expect(preview(page).getByLabel('New card')).toHaveValue('draft');

  // bob is not a member of ws-alice: the move is refused by the policy, and nothing changes.
  await rows.getByRole('button', { name: /^Edit cards\// }).click();
  await editor(page).getByLabel('Edit as').selectOption('bob');
  await editor(page).getByRole('textbox', { name: 'workspaceId', exact: true }).fill('ws-alice');
  await editor(page).getByRole('button', { name: 'Save as bob' }).click();
  await expect(page.getByTestId('edit-refused')).toHaveAttribute('data-code', 'operation_failed');
  await page.locator('.data-views').getByRole('button', { name: 'Refresh' }).click();
  await expect(rows.getByRole('cell', { name: 'ws-team', exact: true })).toBeVisible();
  await expect(rows.getByRole('cell', { name: 'ws-alice', exact: true })).toHaveCount(0);
});
