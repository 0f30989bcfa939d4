/** A React app in the playground: the todo-react template compiles in the worker (React from the platform) and renders in the preview. */
import { expect, test } from './profile';
import { openTemplate, preview } from './helpers';

test('the React template opens, builds with React and runs in the preview: it renders and calls its queries and mutations', async ({ page }, testInfo) => {
  await openTemplate(page, 'todo-react');
  await expect(preview(page).getByRole('heading', { name: 'Todos' })).toBeVisible();
  // todos.remaining answered: the query ran through platform/client's hooks, bound to React's.
  await expect(preview(page).getByText('0 left')).toBeVisible();
  // React's root, not Preact's: createRoot marks the container it renders into.
  await expect.poll(() => preview(page).locator('#app').evaluate((el) => Object.keys(el).some((key) => key.startsWith('__reactContainer')))).toBe(true);
  await preview(page).getByLabel('New todo').fill('milk');
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText('milk')).toBeVisible();
  await expect(preview(page).getByText('1 left')).toBeVisible();
  await testInfo.attach('react preview', { body: await page.screenshot(), contentType: 'image/png' });
});
