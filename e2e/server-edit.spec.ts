/**
 * A server-only edit: the compiler worker bundles the server alone and keeps the previous build's
 * client (src/core/build/client-reuse.ts), and the preview shows the new server's answers. A client
 * edit after it is bundled and shown as before.
 */
import { expect, test } from '@playwright/test';
import { afterRebuild, openTemplate, preview, replaceFile } from './helpers';

test.describe.configure({ timeout: 120_000 });

for (const template of ['todo', 'todo-react']) {
  test(`${template}: a server edit shows its new result in the preview, the client kept from the build before`, async ({ page }, testInfo) => {
    await openTemplate(page, template);
    const app = preview(page);
    await app.getByLabel('New todo').fill('Water the plants');
    await app.getByRole('button', { name: 'Add' }).click();
    await expect(app.getByText('Water the plants')).toBeVisible();

    const title = (n: number) => (text: string) => text.replace(/\(\{ id: row\.id, title: [^,]+, done/, `({ id: row.id, title: \`\${row.title} v${n}\`, done`);
    // The first edit's build is the worker's first of this project (the template's preview was prebuilt): it bundles both.
    await afterRebuild(page, () => replaceFile(page, 'index.ts', title(1)));
    await expect(app.getByText('Water the plants v1')).toBeVisible();
    // The second is a server-only edit after a good build: the server alone is bundled, the client kept.
    await afterRebuild(page, () => replaceFile(page, 'index.ts', title(2)));
    await expect(app.getByText('Water the plants v2')).toBeVisible();
    await expect(app.getByText('Water the plants v1')).toHaveCount(0);
    await page.getByRole('tab', { name: 'Events' }).click();
    await expect(page.locator('.events li[data-kind="compile.ready"]').first()).toContainText('client=kept');
    await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/);
    // The app still works on the new server: a todo added shows with the new title.
    await app.getByLabel('New todo').fill('Call mum');
    await app.getByRole('button', { name: 'Add' }).click();
    await expect(app.getByText('Call mum v2')).toBeVisible();
    if (process.env.SCREENSHOT_DIR) await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/server-edit-${template}.png` });
    await testInfo.attach('after a server edit', { body: await page.screenshot(), contentType: 'image/png' });

    // A client edit after it is bundled and shown.
    await afterRebuild(page, () => replaceFile(page, 'main.tsx', (text) => text.replace('<h1>Todos</h1>', '<h1>Todos, edited</h1>')));
    await expect(app.getByRole('heading', { name: 'Todos, edited' })).toBeVisible();
    await expect(page.locator('.events li[data-kind="compile.ready"]').first()).not.toContainText('client=kept');
    await expect(app.getByText('Call mum v2')).toBeVisible();
  });
}
