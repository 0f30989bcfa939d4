/**
 * Projects (issue 17 item 5): rename and duplicate from the project list and the workspace's header,
 * the list made of links (a new tab works), and a second tab that waits for the project, takes over
 * from the first, and gives it back, with nothing typed or added lost.
 */
import { expect, test, type Page } from './profile';
import { editorText, openTemplate, preview, replaceFile, storedProject } from './helpers';

// Each tab loads its own compiler: on a loaded machine a second tab's first build is slow.
test.describe.configure({ timeout: 180_000 });
const READY = { timeout: 60_000 };
/** What a preview shows once it has loaded after a build. */
const SHOWN = { timeout: 20_000 };
const projectId = (page: Page) => /#\/p\/(p_[a-z0-9]+)/.exec(page.url())?.[1];

async function addTodo(page: Page, title: string) {
  await preview(page).getByLabel('New todo').fill(title);
  await preview(page).getByRole('button', { name: 'Add', exact: true }).click();
  await expect(preview(page).getByText(title, { exact: true })).toBeVisible(SHOWN);
}

test('a project is renamed from the header and the list; bad names are refused with a code, and an edit after a rename keeps the new name', async ({ page }) => {
  await openTemplate(page);
  const name = page.getByTestId('project-name');
  const before = (await name.textContent())!;
  await page.getByRole('button', { name: `Rename ${before}`, exact: true }).click();
  const input = page.getByRole('textbox', { name: 'Project name' });

  await input.fill('   ');
  await input.press('Enter');
  await expect(page.locator('.rename-error')).toHaveAttribute('data-code', 'project_name_empty');
  await expect(page.locator('.rename-error')).toContainText('A project needs a name');

  await input.fill('x'.repeat(101));
  await page.getByRole('button', { name: 'Rename', exact: true }).click();
  await expect(page.locator('.rename-error')).toHaveAttribute('data-code', 'project_name_too_long');
  await expect(page.locator('.rename-error')).toContainText('at most 100 characters; this one has 101');

  await input.fill('  Groceries  ');
  await input.press('Enter');
  await expect(name).toHaveText('Groceries');
  await expect(page).toHaveTitle('Groceries · Platform Playground');

  // The open session saves again (a persona switch): the name stays the new one.
  await page.getByRole('button', { name: 'bob', exact: true }).click();
  await expect.poll(() => storedProject(page), { timeout: 15_000 }).toMatchObject({ persona: 'bob' });
  await page.reload();
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, READY);
  await expect(name).toHaveText('Groceries');

  // Escape leaves the name as it was.
  await page.getByRole('button', { name: 'Rename Groceries', exact: true }).click();
  await input.fill('Never mind');
  await input.press('Escape');
  await expect(name).toHaveText('Groceries');

  await page.goto('/#/');
  await page.getByRole('button', { name: 'Rename Groceries', exact: true }).click();
  await input.fill('Weekly shop');
  await page.getByRole('button', { name: 'Rename', exact: true }).click();
  await expect(page.getByRole('link', { name: 'Weekly shop', exact: true })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('link', { name: 'Weekly shop', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Groceries', exact: true })).toHaveCount(0);
});

test('duplicate makes a new project with the same files and the same data, and opens it', async ({ page }) => {
  await openTemplate(page);
  const original = projectId(page)!;
  await addTodo(page, 'oat milk');
  await replaceFile(page, 'main.tsx', (text) => `// an edit the copy carries\n${text}`);
  await expect.poll(() => storedProject(page, 'oat milk'), { timeout: 15_000 }).toMatchObject({ stateHolds: true });
  const title = (await page.getByTestId('project-name').textContent())!;

  await page.getByRole('button', { name: `Duplicate ${title}`, exact: true }).click();
  await expect.poll(() => projectId(page)).not.toBe(original);
  await expect(page.getByTestId('project-name')).toHaveText(`${title} (copy)`, SHOWN);
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, READY);
  await expect(preview(page).getByText('oat milk', { exact: true })).toBeVisible(SHOWN);
  await page.getByRole('treeitem', { name: 'main.tsx', exact: true }).click();
  await expect.poll(() => editorText(page), SHOWN).toContain('// an edit the copy carries');

  // The copy's data is its own: a todo added here is not in the original.
  await addTodo(page, 'rye bread');
  await page.goto(`/#/p/${original}`);
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, READY);
  await expect(preview(page).getByText('oat milk', { exact: true })).toBeVisible(SHOWN);
  await expect(preview(page).getByText('rye bread', { exact: true })).toHaveCount(0);

  // From the list too.
  await page.goto('/#/');
  await page.getByRole('button', { name: `Duplicate ${title}`, exact: true }).click();
  await expect(page.getByTestId('project-name')).toHaveText(`${title} (copy)`, READY);
  await page.goto('/#/');
  await expect(page.locator('.project-list > li')).toHaveCount(3);
});

test('the project list is links: a plain click opens in place, a middle click in a new tab', async ({ page, context }) => {
  await openTemplate(page);
  const id = projectId(page)!;
  const title = (await page.getByTestId('project-name').textContent())!;
  await page.goto('/#/');
  const link = page.getByRole('link', { name: title, exact: true });
  await expect(link).toHaveAttribute('href', `#/p/${id}`);

  const opened = context.waitForEvent('page');
  await link.click({ button: 'middle' });
  const tab = await opened;
  await expect(tab).toHaveURL(new RegExp(`#/p/${id}$`));
  await expect(tab.getByTestId('compile-status')).toHaveText(/^Ready/, READY);
  await expect(page.getByRole('heading', { name: 'Your projects' })).toBeVisible();
  await tab.close();

  await link.click();
  await expect(page).toHaveURL(new RegExp(`#/p/${id}$`));
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, READY);
});

test('a second tab waits for the project and opens it by itself when the first tab closes', async ({ page, context }) => {
  await openTemplate(page);
  await addTodo(page, 'first tab todo');
  const second = await context.newPage();
  await second.goto(page.url());
  await expect(second.getByTestId('lease-held')).toContainText('is open in another tab');
  await expect(second.getByRole('button', { name: 'Take over', exact: true })).toBeVisible();

  await page.close();
  await expect(second.getByTestId('compile-status')).toHaveText(/^Ready/, READY);
  await expect(preview(second).getByText('first tab todo', { exact: true })).toBeVisible(SHOWN);
});

test('Take over: the first tab saves what was just typed and added, says the project moved, and takes it back', async ({ page, context }) => {
  await openTemplate(page);
  const second = await context.newPage();
  await second.goto(page.url());
  await expect(second.getByTestId('lease-held')).toContainText('is open in another tab');

  // Typed and added just before the take-over: nothing waits for an autosave.
  await addTodo(page, 'added before take-over');
  await replaceFile(page, 'main.tsx', (text) => `// typed in the first tab\n${text}`);
  await second.getByRole('button', { name: 'Take over', exact: true }).click();

  await expect(page.getByTestId('lease-held')).toHaveAttribute('data-moved', 'true');
  await expect(page.getByTestId('lease-held')).toContainText('moved to another tab');
  await expect(second.getByTestId('compile-status')).toHaveText(/^Ready/, READY);
  await expect(preview(second).getByText('added before take-over', { exact: true })).toBeVisible(SHOWN);
  await second.getByRole('treeitem', { name: 'main.tsx', exact: true }).click();
  await expect.poll(() => editorText(second), SHOWN).toContain('typed in the first tab');

  // The second tab's own work goes back with the project.
  await addTodo(second, 'added in the second tab');
  await page.getByRole('button', { name: 'Take it back', exact: true }).click();
  await expect(second.getByTestId('lease-held')).toHaveAttribute('data-moved', 'true');
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, READY);
  await expect(preview(page).getByText('added in the second tab', { exact: true })).toBeVisible(SHOWN);
  await expect(preview(page).getByText('added before take-over', { exact: true })).toBeVisible(SHOWN);
});
