/** What the sharing and data specs share: adding a todo in the preview, the share link, the Data panel. */
import { expect, type Page } from '@playwright/test';
import { preview } from './helpers';

/** Adds a todo through the todo template's preview and waits until it is listed. */
export async function addTodo(page: Page, title: string) {
  await preview(page).getByLabel('New todo').fill(title);
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText(title, { exact: true })).toBeVisible();
}

/** Opens the Share popover and reads the link it made (with the app's data unless told otherwise). */
export async function shareLink(page: Page, withData = true): Promise<string> {
  await page.getByRole('button', { name: 'Share…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share' });
  const box = dialog.getByRole('checkbox', { name: /Include the app’s data/ });
  if ((await box.isChecked()) !== withData) await box.setChecked(withData);
  await expect(page.getByTestId('share-size')).toContainText(withData ? 'with the data' : 'without data');
  return page.getByTestId('share-link').inputValue();
}

/** Opens the Data panel on one of its views. */
export async function dataView(page: Page, view: 'Tables' | 'Storage' | 'SQL' | 'Run an operation' | 'Export, import, reset') {
  await page.getByRole('tab', { name: 'Data', exact: true }).click();
  await page.getByRole('tablist', { name: 'Data views' }).getByRole('tab', { name: view }).click();
}

/** The row count the Data panel's table list shows for a table. */
export function tableButton(page: Page, table: string) {
  return page.getByRole('list', { name: 'Tables' }).getByRole('button', { name: new RegExp(`^${table} \\d+$`) });
}
