/**
 * A client-only edit: the compiler worker bundles the client alone and keeps the previous build's
 * server (src/core/build/bundle-reuse.ts), byte for byte, so the running runtime is kept with its data
 * (`server=kept runtime=kept` in Events) and the preview shows the new client over it. A stylesheet
 * edit keeps the server too.
 */
import { expect, test } from './profile';
import { afterRebuild, openTemplate, preview, replaceFile } from './helpers';

test.describe.configure({ timeout: 120_000 });

for (const template of ['todo', 'todo-react']) {
  test(`${template}: a client edit shows in the preview, the server and the runtime kept from the build before`, async ({ page }, testInfo) => {
    await openTemplate(page, template);
    const app = preview(page);
    await app.getByLabel('New todo').fill('Water the plants');
    await app.getByRole('button', { name: 'Add' }).click();
    await expect(app.getByText('Water the plants')).toBeVisible();
    const ready = page.locator('.events li[data-kind="compile.ready"]').first();

    // The first edit's build is the worker's first of this project (the template's preview was prebuilt): it bundles both.
    await afterRebuild(page, () => replaceFile(page, 'main.tsx', (text) => text.replace('<h1>Todos</h1>', '<h1>Todos, once</h1>')));
    await expect(app.getByRole('heading', { name: 'Todos, once' })).toBeVisible();
    await page.getByRole('tab', { name: 'Events' }).click();
    await expect(ready).not.toContainText('server=kept');

    // The second is a client-only edit after a good build: the client alone is bundled, the server kept,
    // and with it the runtime (the same server code) and what the app wrote.
    await afterRebuild(page, () => replaceFile(page, 'main.tsx', (text) => text.replace('<h1>Todos, once</h1>', '<h1>Todos, twice</h1>')));
    await expect(app.getByRole('heading', { name: 'Todos, twice' })).toBeVisible();
    await expect(ready).toContainText('server=kept');
    await expect(ready).toContainText('runtime=kept');
    await expect(ready).not.toContainText('client=kept');
    await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/);
    await expect(app.getByText('Water the plants')).toBeVisible();
    // The app still works on the kept server: a todo added shows.
    await app.getByLabel('New todo').fill('Call mum');
    await app.getByRole('button', { name: 'Add' }).click();
    await expect(app.getByText('Call mum')).toBeVisible();
    if (process.env.SCREENSHOT_DIR) await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/client-edit-${template}.png` });
    await testInfo.attach('after a client edit', { body: await page.screenshot(), contentType: 'image/png' });

    // A stylesheet the client imports cannot change the server: it is kept too.
    await afterRebuild(page, () => replaceFile(page, 'style.css', (text) => `${text}\nh1 { letter-spacing: 3px; }\n`));
    await expect(app.getByRole('heading', { name: 'Todos, twice' })).toHaveCSS('letter-spacing', '3px');
    await expect(ready).toContainText('server=kept');
    await expect(app.getByText('Call mum')).toBeVisible();

    // A server edit after them still reaches the preview (the client kept this time).
    await afterRebuild(page, () => replaceFile(page, 'index.ts', (text) => text.replace(/\(\{ id: row\.id, title: [^,]+, done/, '({ id: row.id, title: `${row.title} v1`, done')));
    await expect(app.getByText('Call mum v1')).toBeVisible();
    await expect(ready).toContainText('client=kept');
    await expect(ready).not.toContainText('server=kept');
  });
}
