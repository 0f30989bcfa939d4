/**
 * A project opens at the speed of a template, whatever it holds (issue 31, item 1): a reopened
 * project shows its stored last good build before the compiler is up; a share link's first build is
 * previewed before the whole project is type-checked, its diagnostics follow, and a build the check
 * finds broken is taken down; the Problems panel says "Checking…" until the check ran. A share link's
 * first preview is the page's quick preview, made before the compiler starts.
 */
import { join } from 'node:path';
import { chromium, expect, test, type Page, type Route } from './profile';
import { encodeShareLink } from '../src/core/share';
import { readTextTree } from '../src/adapters/node/templates';
import { generatedProject } from '../bench/generated-project';
import { openTemplate, preview, replaceFile } from './helpers';

test.describe.configure({ timeout: 240_000 });

/** Holds esbuild's wasm (the compiler's start) until `release` is called: the compiler cannot be ready before. */
async function holdCompiler(page: Page): Promise<() => Promise<void>> {
  const held: Route[] = [];
  let releasing = false;
  await page.route(/\/assets\/esbuild-[^/]*\.wasm$/, (route) => (releasing ? route.continue() : void held.push(route)));
  return async () => {
    releasing = true;
    for (const route of held.splice(0)) await route.continue();
  };
}

const marks = (page: Page, names: string[]) => page.evaluate((list) => list.map((name) => performance.getEntriesByName(name)[0]?.startTime ?? null), names);

async function shareLinkOf(files: Record<string, string>): Promise<string> {
  const encoded = await encodeShareLink({ files, persona: 'alice', openFile: 'src/client/main.tsx', name: 'generated' });
  if (!encoded.ok) throw new Error(encoded.error.message);
  return `/#/share/${encoded.hash}`;
}

test('a reopened edited project shows its stored last good build before the compiler is ready', async ({ page }) => {
  await openTemplate(page);
  await replaceFile(page, 'main.tsx', (text) => text.replace('<h1>Todos</h1>', '<h1>Todos, edited</h1>'));
  await expect(preview(page).getByRole('heading', { name: 'Todos, edited' })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/);
  // The edited build has been kept as the last good one (after its check).
  await expect(page.getByTestId('problem-count')).toHaveText('0', { timeout: 60_000 });
  await page.waitForTimeout(500);

  const release = await holdCompiler(page);
  await page.reload();
  await expect(preview(page).getByRole('heading', { name: 'Todos, edited' })).toBeVisible({ timeout: 30_000 });
  // The compiler is still held: the preview is the stored build, and the page says so.
  expect((await marks(page, ['platform:compiler-ready']))[0]).toBeNull();
  await expect(page.getByTestId('compile-status')).not.toHaveText(/^Ready/);
  await expect(page.getByTestId('preview-stale')).toContainText('Showing the last good build');
  await expect(page.getByTestId('problems-checking')).toHaveText('Checking…');
  await expect(page.getByTestId('all-clear')).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('reopened-stored-build.png') });

  await release();
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 120_000 });
  await expect(page.getByTestId('preview-stale')).toHaveCount(0);
  await expect(page.getByTestId('all-clear')).toBeVisible({ timeout: 120_000 });
  await expect(preview(page).getByRole('heading', { name: 'Todos, edited' })).toBeVisible();
});

test('a share link of a 200-file project previews its bundle before the type check, then its diagnostics', async ({ page }) => {
  await page.goto(await shareLinkOf(generatedProject(200)));
  await expect(preview(page).getByRole('heading', { name: 'Todos' })).toBeVisible({ timeout: 180_000 });
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/);
  await expect(page.getByTestId('problems-checking').or(page.getByTestId('all-clear'))).toBeVisible();
  await expect(page.getByTestId('all-clear')).toBeVisible({ timeout: 180_000 });
  const [ready, checked] = await marks(page, ['platform:preview-ready', 'platform:check-done']);
  // The preview came first; the check answered after it.
  expect(ready).not.toBeNull();
  expect(checked).not.toBeNull();
  expect(ready!).toBeLessThan(checked!);
});

test("a share link's quick preview runs the app before the compiler has started, and the next edit is the compiler's build", async ({ page }) => {
  const release = await holdCompiler(page);
  const files = generatedProject(200);
  const parts = Object.keys(files).filter((path) => /^src\/client\/parts\/part\d+\.tsx$/.test(path)).length;
  await page.goto(await shareLinkOf(files));
  await expect(preview(page).getByRole('heading', { name: 'Todos' })).toBeVisible({ timeout: 60_000 });
  // Made in the page (src/ui/quick-preview.ts): the compiler's wasm is still held.
  const [quick, compilerReady] = await marks(page, ['platform:quick-preview', 'platform:compiler-ready']);
  expect(quick).not.toBeNull();
  expect(compilerReady).toBeNull();
  // Its client and server work together: a mutation through the runtime, and the query that follows.
  await preview(page).getByLabel('New todo').fill('from the quick preview');
  await preview(page).getByRole('button', { name: 'Add' }).click();
  await expect(preview(page).getByText('from the quick preview', { exact: true })).toBeVisible({ timeout: 30_000 });
  expect(await preview(page).locator('body').evaluate(() => ((globalThis as { generatedParts?: unknown[] }).generatedParts ?? []).length)).toBe(parts);
  await page.screenshot({ path: test.info().outputPath('quick-preview.png') });

  await release();
  await expect(page.getByTestId('all-clear')).toBeVisible({ timeout: 180_000 });
  await replaceFile(page, 'main.tsx', (text) => text.replace('<h1>Todos</h1>', '<h1>Todos, built by the compiler</h1>'));
  await expect(preview(page).getByRole('heading', { name: 'Todos, built by the compiler' })).toBeVisible({ timeout: 120_000 });
  // The data the quick preview's server wrote is the compiler's build's too.
  await expect(preview(page).getByText('from the quick preview', { exact: true })).toBeVisible();
});

test('a share link the quick preview declines (a React app) is bundled by the compiler, before its check as any first build', async ({ page }) => {
  const files = readTextTree(join(import.meta.dirname, '../templates/todo-react'));
  files['src/client/main.tsx'] = files['src/client/main.tsx']!.replace('<h1>Todos</h1>', '<h1>Todos, in React</h1>');
  await page.goto(await shareLinkOf(files));
  await expect(preview(page).getByRole('heading', { name: 'Todos, in React' })).toBeVisible({ timeout: 180_000 });
  const [quick, compilerReady] = await marks(page, ['platform:quick-preview', 'platform:compiler-ready']);
  expect(quick).toBeNull();
  expect(compilerReady).not.toBeNull();
  await page.getByRole('tab', { name: /Events/ }).click();
  await expect(page.locator('.events li[data-kind="compile.ready"]').first()).toContainText('typecheck=after');
});

test('the Problems panel says Checking… until the check ran, never "No problems" before', async ({ page }) => {
  // Every state the panel shows, in order, from the page's first render.
  await page.addInitScript(() => {
    const seen: string[] = [];
    (globalThis as { problemStates?: string[] }).problemStates = seen;
    new MutationObserver(() => {
      const now = document.querySelector('[data-testid="problems-checking"]') ? 'checking' : document.querySelector('[data-testid="all-clear"]') ? 'clear' : document.querySelector('.problems') ? 'listed' : 'none';
      if (seen.at(-1) !== now) seen.push(now);
    }).observe(document, { subtree: true, childList: true });
  });
  const release = await holdCompiler(page);
  await page.goto(await shareLinkOf(generatedProject(60)));
  await expect(page.getByTestId('problems-checking')).toHaveText('Checking…', { timeout: 60_000 });
  await expect(page.getByTestId('problem-count')).toHaveText('…');
  await page.screenshot({ path: test.info().outputPath('problems-checking.png') });
  await release();
  await expect(page.getByTestId('all-clear')).toBeVisible({ timeout: 180_000 });
  const states = await page.evaluate(() => (globalThis as { problemStates?: string[] }).problemStates!);
  expect(states.filter((s) => s !== 'none')).toEqual(['checking', 'clear']);
  expect((await marks(page, ['platform:check-done']))[0]).not.toBeNull();
});

test('a share link whose files have a type error: its preview built before the check is taken down, and the page says so', async ({ page }) => {
  const files = generatedProject(60);
  files['src/client/parts/part000.tsx'] = `${files['src/client/parts/part000.tsx']}\nexport const wrong: number = 'not a number';\n`;
  await page.goto(await shareLinkOf(files));
  await expect(page.getByTestId('compile-status')).toHaveText('Build failed: the type check found errors, so its preview was taken down', { timeout: 180_000 });
  await expect(page.locator('.problems')).toContainText("Type 'string' is not assignable to type 'number'");
  await expect(page.locator('.problems')).toContainText('src/client/parts/part000.tsx');
  // No preview runs the broken build.
  await expect(page.locator('iframe.preview-frame')).toHaveCount(0);
  await expect(page.getByTestId('preview-empty')).toContainText('was taken down: the check found errors');
  // It was built and started before the check (compile.ready, typecheck=after), then taken down.
  await page.getByRole('tab', { name: /Events/ }).click();
  await expect(page.locator('.events li[data-kind="compile.ready"]')).toContainText('typecheck=after');
  await expect(page.locator('.events li[data-kind="compile.taken-down"]')).toHaveCount(1);
  await page.getByRole('tab', { name: /Problems/ }).click();
  await page.screenshot({ path: test.info().outputPath('taken-down.png') });
});

test('the preview is not taken for stuck when the playground page itself was busy (the preview that never came)', async ({ page }) => {
  await openTemplate(page);
  await expect(preview(page).getByRole('heading', { name: 'Todos' })).toBeVisible();
  // The page's own thread busy for longer than the heartbeat's patience, as a loaded machine makes it
  // while the editor, the compiler's start and a big project's tree come up after the first preview.
  await page.evaluate(() => {
    const until = Date.now() + 4500;
    while (Date.now() < until);
  });
  await page.waitForTimeout(2500);
  await expect(page.locator('.preview-stopped')).toHaveCount(0);
  await expect(preview(page).getByRole('heading', { name: 'Todos' })).toBeVisible();
});

test('a preview whose code takes a while to start (a big bundle on a loaded machine) is not ended before it loaded', async ({ page }) => {
  await openTemplate(page);
  await replaceFile(page, 'main.tsx', (text) => `{\n  const until = Date.now() + 4500;\n  while (Date.now() < until);\n}\n${text.replace('<h1>Todos</h1>', '<h1>Todos, slow to start</h1>')}`);
  // Whichever comes first, so a failure says which: the edited app's heading, or the preview ended.
  const heading = preview(page).getByRole('heading', { name: 'Todos, slow to start' });
  const outcome = async () => ((await page.locator('.preview-stopped').count()) ? 'ended' : (await heading.isVisible().catch(() => false)) ? 'shown' : 'waiting');
  await expect.poll(outcome, { timeout: 120_000, intervals: [250] }).not.toBe('waiting');
  expect(await outcome()).toBe('shown');
  await page.waitForTimeout(1500);
  await expect(page.locator('.preview-stopped')).toHaveCount(0);
});

test("the compiler's start (esbuild's wasm, the worker with TypeScript's libraries) comes from the browser's cache on the next visit", async ({ baseURL }, testInfo) => {
  // A profile on disk, as a person's browser has: an ephemeral context's in-memory cache keeps no entry
  // as large as esbuild's wasm (14 MB), so a private window fetches it again (docs/playground.md).
  const context = await chromium.launchPersistentContext(testInfo.outputPath('profile'), { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', baseURL: baseURL! });
  try {
    const startCompiler = (p: Page) => p.evaluate(async () => (globalThis as unknown as { __platformCompiler: { ready: Promise<unknown> } }).__platformCompiler.ready);
    // The worker fetches the wasm itself: its request is seen by the context, not in the page's timeline.
    const urls = new Set<string>();
    context.on('request', (request) => {
      if (/\/assets\/(esbuild-[^/]*\.wasm|compiler\.worker-[^/]*\.js)$/.test(request.url())) urls.add(request.url());
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto('/');
    await startCompiler(page);
    expect([...urls].map((url) => url.replace(/^.*\/assets\//, '').split('-')[0]).sort()).toEqual(['compiler.worker', 'esbuild']);
    // A later visit finds both in the HTTP cache (`only-if-cached` fails otherwise).
    const later = await context.newPage();
    await later.goto('/');
    const cached = await later.evaluate(async (list) => Promise.all(list.map(async (url) => (await fetch(url, { cache: 'only-if-cached', mode: 'same-origin' }).catch(() => undefined))?.status ?? 0)), [...urls]);
    expect(cached).toEqual([200, 200]);
    await startCompiler(later);
  } finally {
    await context.close();
  }
});
