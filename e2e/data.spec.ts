import { readFile } from 'node:fs/promises';
import { expect, test } from './profile';
import { openTemplate, preview } from './helpers';
import { addTodo, dataView, tableButton } from './share-helpers';

// Each test starts the compiler worker (esbuild-wasm and TypeScript) in a fresh page, on 2 cores.
test.describe.configure({ timeout: 120_000 });

test('the data browser shows rows, schema and indexes, runs operations as bob, and its SQL refuses writes', async ({ page }, testInfo) => {
  await openTemplate(page);
  await addTodo(page, 'milk');

  await dataView(page, 'Tables');
  await expect(tableButton(page, 'todos')).toHaveText('todos 1');
  // The runtime's own tables are listed after the app's.
  await expect(tableButton(page, '__platform_meta')).toBeVisible();
  const rows = page.getByRole('table', { name: 'Rows of todos' });
  await expect(rows.getByRole('cell', { name: 'milk', exact: true })).toBeVisible();
  await expect(rows.getByRole('columnheader', { name: 'ownerId' })).toBeVisible();
  await expect(page.getByTestId('row-range')).toHaveText('Rows 1–1 of 1');
  await expect(page.getByRole('table', { name: 'Schema of todos' }).getByRole('cell', { name: 'title', exact: true })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Indexes of todos' })).toContainText('(ownerId, done, createdAt, id)');
  await testInfo.attach('data: tables', { body: await page.screenshot(), contentType: 'image/png' });

  // A mutation and a query as bob, with JSON input.
  await dataView(page, 'Run an operation');
  await page.getByLabel('Persona').selectOption('bob');
  await page.getByLabel('Operation').selectOption('mutation todos.add');
  await page.getByLabel('Input').fill('{ "title": "bread" }');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByTestId('call-result')).toContainText('"id": "');
  await page.getByLabel('Operation').selectOption('query todos.list');
  await page.getByLabel('Input').fill('{}');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByTestId('call-result')).toContainText('"title": "bread"');
  await expect(page.getByTestId('call-result')).not.toContainText('milk');
  await testInfo.attach('data: a query as bob', { body: await page.screenshot(), contentType: 'image/png' });
  // A runtime error is shown with its status and code.
  await page.getByLabel('Persona').selectOption('guest');
  await page.getByLabel('Operation').selectOption('mutation todos.add');
  await page.getByLabel('Input').fill('{ "title": "x" }');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByTestId('call-result').getByRole('alert')).toContainText('400 operation_failed');
  // Input that is not JSON never reaches the runtime.
  await page.getByLabel('Input').fill('{ title: ');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByTestId('call-result').getByRole('alert')).toContainText('The input is not JSON');

  // Alice's preview is untouched by bob's todo.
  await expect(preview(page).getByText('1 left')).toBeVisible();
  await dataView(page, 'Tables');
  await expect(tableButton(page, 'todos')).toHaveText('todos 2');

  // Read-only SQL: reads run; writes are refused by the statement check and by SQLite's query_only.
  await dataView(page, 'SQL');
  const sql = page.getByRole('textbox', { name: /Read-only SQL/ });
  const result = page.getByTestId('sql-result');
  await sql.fill('SELECT title FROM todos ORDER BY title');
  await page.getByRole('button', { name: 'Run SQL' }).click();
  await expect(result.getByRole('table', { name: 'SQL result' }).getByRole('cell')).toHaveText(['bread', 'milk']);
  await testInfo.attach('data: SQL', { body: await page.screenshot(), contentType: 'image/png' });
  await sql.fill('DELETE FROM todos');
  await page.getByRole('button', { name: 'Run SQL' }).click();
  await expect(result.getByRole('alert')).toContainText('read-only');
  await sql.fill('WITH doomed AS (SELECT id FROM todos) DELETE FROM todos WHERE id IN (SELECT id FROM doomed)');
  await page.getByRole('button', { name: 'Run SQL' }).click();
  await expect(result.getByRole('alert')).toContainText('readonly database');
  await sql.fill("SELECT 1; UPDATE todos SET title = 'gone'");
  await page.getByRole('button', { name: 'Run SQL' }).click();
  await expect(result.getByRole('alert')).toContainText('One statement at a time');
  await sql.fill('PRAGMA query_only = OFF');
  await page.getByRole('button', { name: 'Run SQL' }).click();
  await expect(result.getByRole('alert')).toContainText('read-only');
  await sql.fill('SELECT count(*) AS n FROM todos');
  await page.getByRole('button', { name: 'Run SQL' }).click();
  await expect(result.getByRole('table', { name: 'SQL result' }).getByRole('cell')).toHaveText(['2']);
  // Writes by the app still work after all that: query_only was switched off again.
  await addTodo(page, 'eggs');
  await dataView(page, 'Tables');
  await expect(tableButton(page, 'todos')).toHaveText('todos 3');
});

test('state: export, reset, restore the recovery copy, import; a wrong document shows its code and changes nothing', async ({ page }, testInfo) => {
  await openTemplate(page);
  await addTodo(page, 'milk');
  await addTodo(page, 'bread');

  await dataView(page, 'Export, import, reset');
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export state' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('todo-state.json');
  const exportedPath = testInfo.outputPath('todo-state.json');
  await download.saveAs(exportedPath);
  const exported = JSON.parse(await readFile(exportedPath, 'utf8')) as { protocol: string; app: string; schema: string; tables: { todos: Array<{ title: string }> } };
  expect(exported.protocol).toBe('platform.state-export.v0');
  expect(exported.app).toBe('todo');
  expect(exported.schema).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(exported.tables.todos.map((t) => t.title)).toEqual(['milk', 'bread']);
  await expect(page.getByTestId('state-result')).toContainText('Exported 2 records');

  // Reset keeps a recovery copy, restorable from the toolbar.
  await page.locator('.toolbar').getByRole('button', { name: 'Reset data' }).click();
  await expect(preview(page).getByText('0 left')).toBeVisible({ timeout: 30_000 });
  const restore = page.locator('.toolbar').getByRole('button', { name: /^Restore data from / });
  await expect(restore).toBeVisible();
  await testInfo.attach('state: after reset', { body: await page.screenshot(), contentType: 'image/png' });
  // The copy survives a reload (it is in IndexedDB).
  await page.reload();
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
  await expect(preview(page).getByText('0 left')).toBeVisible();
  await restore.click();
  await expect(preview(page).getByText('2 left')).toBeVisible({ timeout: 30_000 });
  await expect(preview(page).getByText('milk', { exact: true })).toBeVisible();
  await expect(restore).toBeHidden();
  await expect(page.getByTestId('session-notice')).toContainText('was restored');

  // Reset again, then import the exported document.
  await page.locator('.toolbar').getByRole('button', { name: 'Reset data' }).click();
  await expect(preview(page).getByText('0 left')).toBeVisible({ timeout: 30_000 });
  await dataView(page, 'Export, import, reset');
  await page.getByTestId('import-state').setInputFiles(exportedPath);
  await expect(page.getByTestId('state-result')).toContainText('Imported 2 records from todo-state.json');
  await expect(preview(page).getByText('2 left')).toBeVisible({ timeout: 30_000 });
  await expect(preview(page).getByText('bread', { exact: true })).toBeVisible();

  // Documents that do not fit: the codes are shown, the data stays.
  const wrongApp = testInfo.outputPath('other-app.json');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(wrongApp, JSON.stringify({ ...exported, app: 'notes' }));
  await page.getByTestId('import-state').setInputFiles(wrongApp);
  const refusal = page.getByTestId('state-result').getByRole('alert');
  await expect(refusal).toHaveAttribute('data-code', 'DG1824');
  await expect(refusal).toHaveAttribute('data-detail-code', 'state_import_application_mismatch');
  await expect(refusal).toContainText('DG1824');
  await testInfo.attach('state: application mismatch', { body: await page.screenshot(), contentType: 'image/png' });

  const wrongRecord = testInfo.outputPath('bad-record.json');
  const bad = structuredClone(exported) as { tables: { todos: Array<Record<string, unknown>> } };
  bad.tables.todos[1]!.title = 'x'.repeat(201);
  await writeFile(wrongRecord, JSON.stringify(bad));
  await page.getByTestId('import-state').setInputFiles(wrongRecord);
  await expect(refusal).toHaveAttribute('data-detail-code', 'state_import_record_invalid');

  const notJson = testInfo.outputPath('not-json.json');
  await writeFile(notJson, '{ "protocol": ');
  await page.getByTestId('import-state').setInputFiles(notJson);
  await expect(refusal).toHaveAttribute('data-code', 'DG1822');

  // All or nothing: the two records are still there.
  await dataView(page, 'Tables');
  await expect(tableButton(page, 'todos')).toHaveText('todos 2');
  await expect(preview(page).getByText('2 left')).toBeVisible();
});

test('the data browser lists stored objects with their metadata and downloads them', async ({ page }, testInfo) => {
  await openTemplate(page, 'files');
  const body = 'hello from the data browser\n';
  await preview(page).locator('input[type="file"]').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from(body) });
  await expect(preview(page).getByText('Uploaded notes.txt.')).toBeVisible();

  await dataView(page, 'Storage');
  const objects = page.getByRole('table', { name: 'Stored objects' });
  await expect(objects.getByRole('row')).toHaveCount(2);
  await expect(objects.getByRole('row').nth(1)).toContainText(`${body.length} bytes`);
  await expect(objects.getByRole('row').nth(1)).toContainText('text/plain');
  await testInfo.attach('data: storage', { body: await page.screenshot(), contentType: 'image/png' });
  const downloading = page.waitForEvent('download');
  await objects.getByRole('button', { name: /^Download / }).click();
  const download = await downloading;
  const saved = testInfo.outputPath('object');
  await download.saveAs(saved);
  expect(await readFile(saved, 'utf8')).toBe(body);
  // The row that records it is in its table.
  await dataView(page, 'Tables');
  await expect(tableButton(page, 'files')).toHaveText('files 1');
  await expect(page.getByRole('table', { name: 'Rows of files' }).getByRole('cell', { name: 'notes.txt', exact: true })).toBeVisible();
});

test('rows show dates as dates and booleans as true/false, sort by a column and filter on the shown text', async ({ page }, testInfo) => {
  await openTemplate(page);
  for (const title of ['milk', 'bread', 'apples']) await addTodo(page, title);
  // The box is controlled by the query's answer: a refresh still arriving from the last add can redraw it
  // unchecked before the toggle's own refresh, so wait for the count rather than for the box's state.
  await preview(page).getByRole('listitem').filter({ hasText: 'bread' }).getByRole('checkbox').click();
  await expect(preview(page).getByText('2 left')).toBeVisible();

  await dataView(page, 'Tables');
  await expect(tableButton(page, 'todos')).toHaveText('todos 3');
  const rows = page.getByRole('table', { name: 'Rows of todos' });
  await expect(rows.locator('tbody tr')).toHaveCount(3);
  const headers = await rows.locator('thead th').allTextContents();
  const column = (name: string) => rows.locator(`tbody tr td:nth-child(${headers.indexOf(name) + 1})`);
  await expect(column('done')).toHaveText(['false', 'true', 'false']);
  for (const shown of await column('createdAt').allTextContents()) expect(shown).toMatch(/^20\d\d-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{3})?Z$/);

  // Sorting: ascending, then descending, then as stored.
  await rows.getByRole('button', { name: 'title', exact: true }).click();
  await expect(column('title')).toHaveText(['apples', 'bread', 'milk']);
  await expect(rows.getByRole('columnheader', { name: /title/ })).toHaveAttribute('aria-sort', 'ascending');
  await rows.getByRole('button', { name: /^title/ }).click();
  await expect(column('title')).toHaveText(['milk', 'bread', 'apples']);
  await testInfo.attach('data: sorted and formatted', { body: await page.screenshot(), contentType: 'image/png' });
  await page.locator('.data-panel, [role="tabpanel"]').first().screenshot({ path: testInfo.outputPath('data-panel.png') });
  await rows.getByRole('button', { name: /^title/ }).click();
  await expect(column('title')).toHaveText(['milk', 'bread', 'apples']);
  await expect(rows.getByRole('columnheader', { name: /title/ })).toHaveAttribute('aria-sort', 'none');

  // Filtering on what is shown: "true" finds the done todo, not a 1 anywhere.
  await page.getByRole('searchbox', { name: 'Filter Rows of todos' }).fill('true');
  await expect(column('title')).toHaveText(['bread']);
  await page.getByRole('searchbox', { name: 'Filter Rows of todos' }).fill('nothing like this');
  await expect(rows.locator('tbody tr')).toHaveCount(0);
  await expect(page.getByText('No row on this page matches the filter.')).toBeVisible();
});
