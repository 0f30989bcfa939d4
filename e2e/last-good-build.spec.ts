/**
 * The last good build outlives a reload: a project left with a type error previews the build it last
 * had, marked as such. A type error in a test file blocks the tests only: the app's preview runs.
 */
import { expect, test, type Page } from './profile';
import { afterRebuild, openTemplate, preview, replaceFile } from './helpers';

test.describe.configure({ timeout: 120_000 });

/**
 * What the open project's last good build in IndexedDB is: when it was kept (undefined: none yet); or,
 * with `rewrite`, it is stored again as versions before 2026-12-01 stored it (its bundles as texts).
 */
async function keptBuild(page: Page, rewrite: 'as-older-version' | undefined = undefined): Promise<number | undefined> {
  return page.evaluate(async (rewrite) => {
    const id = /#\/p\/(p_[a-z0-9]+)/.exec(location.hash)?.[1];
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('platform-playground');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const store = () => db.transaction('projects', 'readwrite').objectStore('projects');
    const done = (request: IDBRequest) => new Promise<unknown>((resolve, reject) => ((request.onsuccess = () => resolve(request.result)), (request.onerror = () => reject(request.error))));
    try {
      const kept = (await done(store().get(`lastgood:${id}`))) as { generation: { manifest: unknown; files: Map<string, Uint8Array> }; savedAt: number } | undefined;
      if (!kept || !rewrite) return kept?.savedAt;
      const text = (path: string) => { const bytes = kept.generation.files.get(path); return bytes && new TextDecoder().decode(bytes); };
      const publicFiles = Object.fromEntries([...kept.generation.files.keys()].filter((path) => path.startsWith('public/')).map((path) => [path.slice('public/'.length), text(path)]));
      const old = { manifest: kept.generation.manifest, serverCode: text('server/index.js'), clientCode: text('client/app.js'), clientCss: text('client/app.css'), clientMap: text('client/app.js.map'), serverMap: text('server/index.js.map'), publicFiles };
      await done(store().put({ generation: old, savedAt: kept.savedAt }, `lastgood:${id}`));
      return kept.savedAt;
    } finally {
      db.close();
    }
  }, rewrite);
}

test('a project with a type error previews its last good build after a reload, marked as such', async ({ page }) => {
  await openTemplate(page);
  await expect(preview(page).getByLabel('New todo')).toBeVisible();
  await expect.poll(() => keptBuild(page), { timeout: 30_000 }).toBeGreaterThan(0);
  await expect(page.getByTestId('preview-stale')).toHaveCount(0);

  await replaceFile(page, 'main.tsx', (text) => `${text}\nconst broken: number = 'not a number';\n`);
  await expect(page.getByTestId('compile-status')).toHaveText('Build failed: showing the last good build', { timeout: 60_000 });
  await expect(page.getByTestId('preview-stale')).toBeVisible();

  await page.reload();
  await expect(page.getByTestId('compile-status')).toHaveText(/^Build failed: showing the last good build \(saved .+, before this session\)$/, { timeout: 60_000 });
  await expect(page.getByTestId('preview-stale')).toHaveText(/^Showing the last good build, saved .+, before this session: the current files do not build/);
  await expect(preview(page).getByLabel('New todo')).toBeVisible();
  // It runs on the project's data: a todo added now is there.
  await preview(page).getByLabel('New todo').fill('kept going');
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText('kept going')).toBeVisible();
  await expect(page.locator('.problems')).toContainText("Type 'string' is not assignable to type 'number'");

  // Fixing the error ends the mark.
  await replaceFile(page, 'main.tsx', (text) => text.replace("\nconst broken: number = 'not a number';\n", '\n'));
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
  await expect(page.getByTestId('preview-stale')).toHaveCount(0);
  await expect(preview(page).getByText('kept going')).toBeVisible();
});

test('a last good build an older version kept (its bundles as texts) still previews after a reload', async ({ page }) => {
  await openTemplate(page);
  await expect(preview(page).getByLabel('New todo')).toBeVisible();
  await expect.poll(() => keptBuild(page), { timeout: 30_000 }).toBeGreaterThan(0);
  await replaceFile(page, 'main.tsx', (text) => `${text}\nconst broken: number = 'not a number';\n`);
  await expect(page.getByTestId('compile-status')).toHaveText('Build failed: showing the last good build', { timeout: 60_000 });
  await keptBuild(page, 'as-older-version');

  await page.reload();
  await expect(page.getByTestId('compile-status')).toHaveText(/^Build failed: showing the last good build \(saved .+, before this session\)$/, { timeout: 60_000 });
  await expect(preview(page).getByLabel('New todo')).toBeVisible();
  await preview(page).getByLabel('New todo').fill('after the move');
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText('after the move')).toBeVisible();
});

test("a type error in a test file blocks the tests, not the app's preview", async ({ page }) => {
  await openTemplate(page);
  await afterRebuild(page, () => replaceFile(page, 'todos.test.ts', (text) => `${text}\nconst wrong: number = 'text';\n`));
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/);
  await expect(page.getByTestId('preview-stale')).toHaveCount(0);
  await expect(preview(page).getByLabel('New todo')).toBeVisible();
  await expect(page.locator('.problems')).toContainText('todos.test.ts');

  await page.getByRole('tab', { name: /Tests/ }).click();
  await page.getByRole('button', { name: 'Run all tests' }).click();
  await expect(page.locator('.tests-panel')).toContainText("Type 'string' is not assignable to type 'number'", { timeout: 60_000 });
  await expect(page.locator('.test-case.passed')).toHaveCount(0);

  // And after a reload, too (no last good build needed: the app builds).
  await page.reload();
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
  await expect(preview(page).getByLabel('New todo')).toBeVisible();
});
