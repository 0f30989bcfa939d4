import { expect, test } from '@playwright/test';
import { afterRebuild, openTemplate, preview, replaceFile } from './helpers';

// Each test starts the compiler worker (esbuild-wasm and TypeScript) in a fresh page, on 2 cores.
test.describe.configure({ timeout: 120_000 });

const CRASHING_CLIENT = `import { render } from 'preact';

console.info('client starting', { persona: 'any' });

function App(): preact.JSX.Element {
  const items: string[] | undefined = undefined;
  if (items === undefined) throw new Error('items were never loaded');
  return <p>unreachable</p>;
}

render(<App />, document.getElementById('app')!);
`;

test('a client crash shows an overlay and a Console entry with its file and line, a click away', async ({ page }, testInfo) => {
  await openTemplate(page);
  await afterRebuild(page, () => replaceFile(page, 'main.tsx', () => CRASHING_CLIENT));
  const overlay = page.getByRole('alert', { name: 'The preview as alice crashed' });
  await expect(overlay).toContainText('Error: items were never loaded');
  // Line 7 of src/client/main.tsx is the throw (source-mapped through the minified client bundle).
  await expect(overlay.getByRole('button', { name: /^src\/client\/main\.tsx:7:\d+$/ })).toBeVisible();
  await testInfo.attach('crash overlay', { body: await page.screenshot(), contentType: 'image/png' });

  await page.getByRole('tab', { name: /Console/ }).click();
  const lines = page.locator('.console-line');
  const crash = lines.filter({ hasText: 'Uncaught Error: items were never loaded' });
  await expect(crash).toHaveAttribute('data-source', 'client');
  await expect(crash.locator('.console-source')).toHaveText('client · alice');
  await expect(lines.filter({ hasText: 'client starting {"persona":"any"}' })).toHaveAttribute('data-level', 'info');
  // The location opens the file at the line.
  await page.getByRole('treeitem', { name: 'index.ts' }).click();
  await expect(page.getByRole('tab', { name: /index\.ts/ })).toHaveAttribute('aria-selected', 'true');
  await crash.getByRole('button', { name: /^src\/client\/main\.tsx:7:/ }).click();
  await expect(page.getByRole('tab', { name: /main\.tsx/ })).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('.cm-activeLine')).toContainText("throw new Error('items were never loaded')");
  await testInfo.attach('console', { body: await page.screenshot(), contentType: 'image/png' });
});

test("a server handler's console lines and its failure show in the Console, labelled with the persona and the call", async ({ page }, testInfo) => {
  await openTemplate(page);
  await afterRebuild(page, () =>
    replaceFile(page, 'index.ts', (text) =>
      text
        .replace('const rows = await ctx.db.table(\'todos\').all();', "const rows = await ctx.db.table('todos').all();\n        console.log('listing', rows.length, 'todos');\n        console.warn({ careful: true });")
        .replace(/handler: async \(ctx\) => ctx\.db\.table\('todos'\)\.count\(.*\),\n/, "handler: async (): Promise<number> => {\n        throw new Error('remaining is broken');\n      },\n"),
    ),
  );
  await page.getByRole('tab', { name: /Console/ }).click();
  const lines = page.locator('.console-line[data-source="server"]');
  const listed = lines.filter({ hasText: 'listing 0 todos' }).first();
  await expect(listed).toContainText('query todos.list');
  await expect(listed.locator('.console-source')).toHaveText('server · alice');
  await expect(lines.filter({ hasText: '{"careful":true}' }).first()).toHaveAttribute('data-level', 'warn');
  const failed = lines.filter({ hasText: 'remaining is broken' }).first();
  await expect(failed).toContainText('query todos.remaining failed: operation_failed: remaining is broken');
  await expect(failed).toHaveAttribute('data-level', 'error');
  await expect(page.getByTestId('console-errors')).not.toHaveText('0');

  // Another persona's calls are labelled with it.
  await page.getByRole('group', { name: 'Preview as' }).getByRole('button', { name: 'bob' }).click();
  await expect(lines.filter({ hasText: 'listing 0 todos' }).locator('.console-source').filter({ hasText: 'server · bob' }).first()).toBeVisible();
  await testInfo.attach('server console', { body: await page.screenshot(), contentType: 'image/png' });
});
