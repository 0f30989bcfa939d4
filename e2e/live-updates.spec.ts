/**
 * Live updates in the playground, as on a hosted page: each preview's client holds one live connection
 * from the app's `liveConnections` budget, and a mutation in one preview re-renders the other only
 * when that preview has a connection and a query that read the written table. With a budget of 0
 * there is no connection: a preview refreshes after its own mutations only.
 */
import { expect, test, type Page } from '@playwright/test';
import { afterRebuild, openTemplate, preview, replaceFile } from './helpers';

test.describe.configure({ timeout: 120_000 });

/** The runtime.call events the playground logged for a persona and an operation (`bob query me.workspaces`). */
const calls = (page: Page, text: string) => page.locator('.events li[data-kind="runtime.call"]').filter({ hasText: text });

async function split(page: Page) {
  await page.getByLabel('split').check();
  await expect(page.locator('iframe.preview-frame')).toHaveCount(2);
  await expect(preview(page, 0).getByLabel('New card')).toBeVisible();
  await expect(preview(page, 1).getByLabel('New card')).toBeVisible();
  await page.getByRole('tab', { name: 'Events' }).click();
}

test('with liveConnections, a mutation in one preview re-renders the other, re-running only the queries that read the written table', async ({ page }, testInfo) => {
  await openTemplate(page, 'team-board');
  await split(page);
  // Both previews hold a live connection (team-board declares liveConnections 20).
  await expect(calls(page, 'alice live connection → 200')).not.toHaveCount(0);
  await expect(calls(page, 'bob live connection → 200')).not.toHaveCount(0);
  await expect(calls(page, 'bob query cards.list')).not.toHaveCount(0);
  const workspaceRuns = await calls(page, 'bob query me.workspaces').count();

  await preview(page, 0).getByLabel('New card').fill('Plan the launch');
  await preview(page, 0).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page, 0).getByText('Plan the launch')).toBeVisible();
  await expect(preview(page, 1).getByText('Plan the launch')).toBeVisible();

  // A second write, after which the first one's re-runs have all been answered (calls run in order).
  await preview(page, 0).getByLabel('New card').fill('Write the notes');
  await preview(page, 0).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page, 1).getByText('Write the notes')).toBeVisible();
  // me.workspaces read no table: no write re-ran it.
  expect(await calls(page, 'bob query me.workspaces').count()).toBe(workspaceRuns);
  await testInfo.attach('live', { body: await page.screenshot(), contentType: 'image/png' });
});

test('with liveConnections 0 there is no stream: the other preview refreshes only when it mutates itself', async ({ page }, testInfo) => {
  await openTemplate(page, 'team-board');
  await afterRebuild(page, () => replaceFile(page, 'app.manifest.json', (text) => text.replace('"liveConnections": 20', '"liveConnections": 0')));
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 30_000 });
  await split(page);
  // Both previews asked for a connection and were refused: the budget is 0.
  await expect(calls(page, 'alice live connection → 503')).not.toHaveCount(0);
  await expect(calls(page, 'bob live connection → 503')).not.toHaveCount(0);
  await expect(calls(page, 'bob query cards.list')).not.toHaveCount(0);

  await preview(page, 0).getByLabel('New card').fill('Only alice sees this yet');
  await preview(page, 0).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page, 0).getByText('Only alice sees this yet')).toBeVisible();
  // Alice's write is committed and shown to her; nothing can carry it to bob's preview.
  await expect(preview(page, 1).getByText('Only alice sees this yet')).toHaveCount(0);

  // Bob's own mutation re-runs his cards query: now he sees both cards.
  await preview(page, 1).getByLabel('New card').fill("Bob's own card");
  await preview(page, 1).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page, 1).getByText("Bob's own card")).toBeVisible();
  await expect(preview(page, 1).getByText('Only alice sees this yet')).toBeVisible();
  // And alice, without a stream either, does not see bob's card until she writes.
  await expect(preview(page, 0).getByText("Bob's own card")).toHaveCount(0);
  await testInfo.attach('no stream', { body: await page.screenshot(), contentType: 'image/png' });
});
