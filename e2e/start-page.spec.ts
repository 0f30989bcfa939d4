/**
 * The start page for someone who has never seen the playground: a short introduction, a link to the
 * docs (served with the playground, under /docs/), and a blank project that opens, checks clean and
 * previews.
 */
import { expect, test } from './profile';
import { openTemplate, preview } from './helpers';

test('the start page says what the playground is and links to the docs, which it serves', async ({ page }) => {
  await page.goto('/');
  await expect(page.locator('.gallery-intro')).toContainText('in this browser');
  const docs = page.getByRole('link', { name: 'Read the docs' });
  await expect(docs).toBeVisible();
  await docs.click();
  await expect(page).toHaveURL(/\/docs\/$/);
  // The index names each page of docs/ and opens it.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Documentation');
  await page.getByRole('link', { name: 'The playground', exact: true }).click();
  await expect(page).toHaveURL(/\/docs\/playground\.html$/);
  await expect(page.locator('pre')).toContainText('# The playground');
  // A link between pages of docs/ leads to the other page.
  await page.locator('pre').getByRole('link', { name: /runtime\.md/ }).first().click();
  await expect(page).toHaveURL(/\/docs\/runtime\.html/);
  await expect(page.locator('pre')).toContainText('# ');
});

test('a blank project opens, checks clean and previews its query', async ({ page }) => {
  await page.goto('/');
  await expect(page.locator('[data-template="blank"]')).toContainText('Blank project');
  await openTemplate(page, 'blank');
  await expect(page.getByTestId('problem-count')).toHaveText('0', { timeout: 60_000 });
  await expect(preview(page).getByRole('heading', { name: 'Hello, world!', level: 1 })).toBeVisible({ timeout: 60_000 });
  for (const file of ['app.manifest.json', 'index.ts', 'main.tsx', 'greeting.test.ts']) await expect(page.getByRole('treeitem', { name: file, exact: true })).toBeVisible();
});
