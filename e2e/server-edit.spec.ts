/**
 * A server-only edit: the compiler worker bundles the server alone and keeps the previous build's
 * client (src/core/build/bundle-reuse.ts), and the preview shows the new server's answers without
 * loading its page again: its mounted queries run again (platform/client `serverReplaced`). A page
 * that holds an answer its queries cannot refresh (a one-off `query()`) loads again instead. A client
 * edit after it is bundled and shown as before.
 */
import { expect, test } from './profile';
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
    // The preview keeps its page (what is typed in it stays) and runs its queries again on the new server.
    await app.getByLabel('New todo').fill('half typed');
    await afterRebuild(page, () => replaceFile(page, 'index.ts', title(2)));
    await expect(app.getByText('Water the plants v2')).toBeVisible();
    await expect(app.getByText('Water the plants v1')).toHaveCount(0);
    await expect(app.getByLabel('New todo')).toHaveValue('half typed');
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

test('a preview that ran a one-off query() loads its page again after a server edit: that answer comes from the new server too', async ({ page }) => {
  await openTemplate(page, 'todo');
  const app = preview(page);
  await app.getByLabel('New todo').fill('Water the plants');
  await app.getByRole('button', { name: 'Add' }).click();
  await expect(app.getByText('Water the plants')).toBeVisible();
  // The client shows a count it asked for once, outside useQuery.
  await afterRebuild(page, () =>
    replaceFile(page, 'main.tsx', (text) =>
      text
        .replace("import { signIn, signOut, useAuth, useMutation, useQuery } from 'platform/client';", "import { query, signIn, signOut, useAuth, useMutation, useQuery } from 'platform/client';")
        .replace('<h1>Todos</h1>', '<h1>Todos</h1><Once />')
        .replace('function Account() {', "function Once() {\n  const [seen, setSeen] = useState('');\n  useState(() => void query('todos.list', {}).then((rows) => setSeen(rows.map((row) => row.title).join(', ')), () => setSeen('failed')));\n  return <p data-testid=\"once\">once: {seen}</p>;\n}\n\nfunction Account() {"),
    ),
  );
  await expect(app.getByTestId('once')).toHaveText('once: Water the plants');
  await app.getByLabel('New todo').fill('half typed');
  await afterRebuild(page, () => replaceFile(page, 'index.ts', (text) => text.replace(/\(\{ id: row\.id, title: [^,]+, done/, '({ id: row.id, title: `${row.title} v2`, done')));
  // Loaded again: the one-off answer is the new server's, and what was typed is gone with the old page.
  await expect(app.getByTestId('once')).toHaveText('once: Water the plants v2');
  await expect(app.getByLabel('New todo')).toHaveValue('');
  await page.getByRole('tab', { name: 'Events' }).click();
  await expect(page.locator('.events li[data-kind="compile.ready"]').first()).toContainText('client=kept');
});
