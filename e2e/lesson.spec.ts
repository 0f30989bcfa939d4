/**
 * Lessons (issue 33): the shipped lesson is shared as a link, and a student completes its steps in the
 * playground: a check that fails, an edit that makes it pass, Reset, Solve, Next; the progress survives
 * a reload. Embedded in a teacher's page, the lesson keeps its progress and the student's work across
 * reloads of that page. axe-core finds nothing serious or critical in the lesson pane, in both themes.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, test, type Page } from './profile';
import { afterRebuild, editorText, openTemplate, preview, replaceEditorText, violations } from './helpers';
import { shareLink } from './share-helpers';

const LESSON = join(import.meta.dirname, '../templates/lesson/lesson');
const lessonPane = (page: Page) => page.getByTestId('lesson');

/** Presses Check and waits for its verdict. */
async function check(page: Page): Promise<string> {
  await lessonPane(page).getByRole('button', { name: 'Check', exact: true }).click();
  const verdict = page.getByTestId('lesson-check');
  await expect(verdict).toBeVisible({ timeout: 90_000 });
  return (await verdict.textContent()) ?? '';
}

test('a shared lesson: the student completes its steps one by one, and the progress survives a reload', async ({ page, browser }, testInfo) => {
  test.setTimeout(300_000);
  await openTemplate(page, 'lesson');
  await expect(lessonPane(page).getByRole('heading', { name: 'A first query' })).toBeVisible();
  const url = await shareLink(page, false);

  // The student opens the teacher's link on a browser of their own.
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const student = await context.newPage();
  await student.goto(url);
  await expect(student.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 90_000 });
  const pane = lessonPane(student);
  await expect(pane.getByText('Step 1 of 4')).toBeVisible();
  await expect(pane.getByRole('heading', { name: 'A first query' })).toBeVisible();
  await testInfo.attach('lesson, step 1', { body: await student.screenshot(), contentType: 'image/png' });

  // Step 1: the check fails as the step begins; the student's edit makes it pass.
  expect(await check(student)).toContain('Not yet');
  await pane.getByTestId('lesson-text').getByRole('button', { name: 'src/server/index.ts' }).first().click();
  await expect(student.getByRole('tab', { name: /index\.ts/ })).toHaveAttribute('aria-selected', 'true');
  // The check runs in a sandbox of its own: the preview's build of the edit is waited for too, or on a
  // loaded machine it is still being made at Next, shows as the next generation, and the page the test
  // then types into is replaced by step 2's.
  await afterRebuild(student, () => replaceEditorText(student, readFileSync(join(LESSON, '1-queries/solution/src/server/index.ts'), 'utf8')));
  expect(await check(student)).toContain('Well done');
  await expect(pane.getByRole('button', { name: /A first query \(done\)/ })).toBeVisible();

  // Step 2: its start files are written as it is entered (the page gains Delete buttons).
  await afterRebuild(student, () => pane.getByRole('button', { name: 'Next →' }).click());
  await expect(pane.getByText('Step 2 of 4')).toBeVisible();
  await expect(pane.getByRole('heading', { name: 'Mutations' })).toBeVisible();
  await preview(student).getByLabel('New note').fill('milk');
  await preview(student).getByRole('button', { name: 'Add' }).click();
  await expect(preview(student).getByRole('button', { name: 'Delete milk' })).toBeVisible({ timeout: 60_000 });
  // Reset takes the step's files back to how it began.
  await expect.poll(() => editorText(student)).toContain("notes.remove is not written yet");
  await replaceEditorText(student, '// a wrong turn\n');
  student.once('dialog', (dialog) => void dialog.accept());
  await pane.getByRole('button', { name: 'Reset' }).click();
  await expect.poll(() => editorText(student)).toContain('notes.remove is not written yet');
  // Solve writes the solution; the check passes.
  student.once('dialog', (dialog) => void dialog.accept());
  await pane.getByRole('button', { name: 'Solve' }).click();
  await expect.poll(() => editorText(student)).toContain('A note needs some text.');
  expect(await check(student)).toContain('Well done');

  // Step 3, solved the same way.
  await pane.getByRole('button', { name: 'Next →' }).click();
  await expect(pane.getByRole('heading', { name: 'Owned tables and personas' })).toBeVisible();
  expect(await check(student)).toContain('Not yet');
  student.once('dialog', (dialog) => void dialog.accept());
  await pane.getByRole('button', { name: 'Solve' }).click();
  // The step's text names the manifest first: it opens, with the owner field the solution gives it.
  await expect.poll(() => editorText(student)).toContain('"ownerId"');
  expect(await check(student)).toContain('Well done');
  // The note added in step 2 has no owner: the new table is refused until the data is reset, as the step says.
  await expect(student.locator('.diagnostic[data-code="DG1603"]')).toBeVisible({ timeout: 60_000 });
  await student.locator('.toolbar').getByRole('button', { name: 'Reset data' }).click();
  await expect(student.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
  await preview(student).getByLabel('New note').fill('mine');
  await preview(student).getByRole('button', { name: 'Add' }).click();
  await expect(preview(student).getByRole('button', { name: 'Delete mine' })).toBeVisible({ timeout: 30_000 });
  await testInfo.attach('lesson, step 3 done', { body: await student.screenshot(), contentType: 'image/png' });

  // A reload: the same step, the same steps done, the student's files.
  await student.reload();
  await expect(student.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 90_000 });
  await expect(pane.getByText('Step 3 of 4')).toBeVisible();
  for (const title of ['A first query', 'Mutations', 'Owned tables and personas']) await expect(pane.getByRole('button', { name: `${title} (done)` })).toBeVisible();
  await expect(pane.getByRole('button', { name: 'Tests of your own', exact: true })).toBeVisible();
  await pane.getByRole('button', { name: 'Next →' }).click();
  await expect(pane.getByRole('heading', { name: 'Tests of your own' })).toBeVisible();
  await pane.getByRole('button', { name: 'Finish' }).click();
  await expect(pane.getByRole('button', { name: 'Tests of your own (done)' })).toBeVisible();
  await context.close();
});

test("a lesson embedded in a teacher's page: the student's steps and progress survive a reload of the page", async ({ page, browser }) => {
  test.setTimeout(240_000);
  await openTemplate(page, 'lesson');
  const url = await shareLink(page, false);
  const hash = url.slice(url.indexOf('#'));
  // The teacher's page, on a loopback server of its own (see sharing.spec.ts for why not a made-up page).
  const teacher = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(`<!doctype html><html lang="en"><title>Lesson</title><h1>Learn the platform</h1><iframe title="Playground" src="${new URL(url).origin}/?embed${hash}" style="width:1200px;height:640px"></iframe></html>`);
  });
  await new Promise<void>((listening) => teacher.listen(0, '127.0.0.1', listening));
  const context = await browser.newContext({ viewport: { width: 1280, height: 760 } });
  const host = await context.newPage();
  try {
    await host.goto(`http://127.0.0.1:${(teacher.address() as AddressInfo).port}/lesson`);
    const embed = host.frameLocator('iframe[title="Playground"]');
    const pane = embed.getByTestId('lesson');
    await expect(embed.getByTestId('compile-status')).toHaveText('Ready', { timeout: 90_000 });
    await expect(pane.getByText('Step 1 of 4')).toBeVisible();
    host.once('dialog', (dialog) => void dialog.accept());
    await pane.getByRole('button', { name: 'Solve' }).click();
    await pane.getByRole('button', { name: 'Check', exact: true }).click();
    await expect(embed.getByTestId('lesson-check')).toContainText('Well done', { timeout: 90_000 });
    await pane.getByRole('button', { name: 'Next →' }).click();
    await expect(pane.getByText('Step 2 of 4')).toBeVisible();

    await host.reload();
    await expect(embed.getByTestId('compile-status')).toHaveText('Ready', { timeout: 90_000 });
    await expect(pane.getByText('Step 2 of 4')).toBeVisible();
    await expect(pane.getByRole('button', { name: 'A first query (done)' })).toBeVisible();
    // Step 2's start files, written as it was entered, are still the project's: the page has its Delete buttons.
    await embed.frameLocator('iframe.preview-frame').getByLabel('New note').fill('milk');
    await embed.frameLocator('iframe.preview-frame').getByRole('button', { name: 'Add' }).click();
    await expect(embed.frameLocator('iframe.preview-frame').getByRole('button', { name: 'Delete milk' })).toBeVisible({ timeout: 60_000 });
  } finally {
    await context.close();
    teacher.close();
  }
});

for (const theme of ['light', 'dark'] as const) {
  test(`the lesson pane in the ${theme} theme has no serious or critical accessibility violation`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: theme });
    await openTemplate(page, 'lesson');
    await expect(lessonPane(page).getByRole('heading', { name: 'A first query' })).toBeVisible();
    expect(await violations(page)).toEqual([]);
    // With a check's verdict shown.
    expect(await check(page)).toContain('Not yet');
    expect(await violations(page)).toEqual([]);
  });
}
