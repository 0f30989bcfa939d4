/**
 * The Terminal panel without a WebContainer: requests to StackBlitz's hosts are aborted (as offline), so
 * the adapter's preflight to StackBlitz fails and the panel says so at once (the boot never settles and
 * its 15 s timeout has not fired), and `platform` runs the core's commands in the browser, printing what
 * the CLI prints; `platform dev` says why it cannot run here.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from './profile';
import { openTemplate } from './helpers';

// The compiler worker starts in each fresh page and platform test runs every template test, on 2 cores.
test.describe.configure({ timeout: 150_000 });

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The real CLI in Node on a template: its standard output (trailing newline dropped) and exit status. */
function cli(args: string[]): { output: string; code: number } {
  try {
    return { output: execFileSync(process.execPath, ['bin/platform.mjs', ...args], { cwd: ROOT, encoding: 'utf8' }).replace(/\n$/, ''), code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; status: number };
    return { output: failed.stdout.replace(/\n$/, ''), code: failed.status };
  }
}

/** Every request to a WebContainer host fails, as it does offline; the URLs are kept. */
async function abortWebContainerHosts(page: Page): Promise<string[]> {
  const aborted: string[] = [];
  const abort = (route: import('@playwright/test').Route) => {
    aborted.push(route.request().url());
    return route.abort('internetdisconnected');
  };
  await page.route('**/*stackblitz*/**', abort);
  await page.route('**/*webcontainer*/**', abort);
  await page.route((url) => /stackblitz|webcontainer/.test(url.hostname), abort);
  return aborted;
}

/** Types a line into the terminal and waits for its output (the panel's text copy of it). */
async function run(page: Page, line: string, timeout = 60_000): Promise<{ output: string; code: number }> {
  const last = page.getByTestId('terminal-last-output');
  const before = await last.textContent();
  await page.locator('.terminal-host').click();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
  await expect(last).not.toHaveText(before ?? '', { timeout });
  const text = (await last.textContent()) ?? '';
  const match = /\n?\[exit (\d+)\]$/.exec(text);
  expect(match, text).not.toBeNull();
  return { output: text.slice(0, match!.index), code: Number(match![1]) };
}

const withoutDurations = (text: string) => text.replace(/ \(\d+ ms\)$/gm, '');

const UNREACHABLE = 'WebContainer unavailable: https://stackblitz.com, which serves WebContainers, cannot be reached from this page (offline, or blocked)';

test('offline: the panel says at once that StackBlitz cannot be reached, platform dev says why it cannot run, and platform check|test|diagnostics print what the CLI prints', async ({ page }, testInfo) => {
  const aborted = await abortWebContainerHosts(page);
  await openTemplate(page);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await page.getByRole('tab', { name: 'Terminal' }).click();
  const mode = page.getByTestId('terminal-mode');
  // The reason is the failed preflight, not the boot's timeout (whose sentence is "boot timed out after 15 s").
  await expect(mode).toHaveText(`In-browser commands — ${UNREACHABLE}`);
  await expect(mode).toHaveAttribute('data-mode', 'browser');
  expect(aborted.some((url) => url.startsWith('https://stackblitz.com/headless'))).toBe(true);

  const dev = await run(page, 'platform dev');
  // The sentence is broken between words to the terminal's width.
  expect({ ...dev, output: dev.output.replace(/\n/g, ' ') }).toEqual({ output: `platform dev needs Node: it runs in the terminal when a WebContainer is available (${UNREACHABLE}), or with the CLI on your machine.`, code: 2 });
  await testInfo.attach('terminal offline, platform dev', { body: await page.screenshot({ path: testInfo.outputPath('terminal-dev.png') }), contentType: 'image/png' });

  const check = await run(page, 'platform check');
  const expected = cli(['check', 'templates/todo']);
  expect(check).toEqual(expected);
  expect(check.output).toMatch(/^✓ todo: manifest, module graphs, server definition, types checked/);

  const tests = await run(page, 'platform test');
  const expectedTests = cli(['test', 'templates/todo']);
  expect(tests.code).toBe(0);
  expect(tests.output.split('\n').at(-1)).toBe('6 passed, 0 failed');
  expect(withoutDurations(tests.output)).toBe(withoutDurations(expectedTests.output));

  const explain = await run(page, 'platform diagnostics dg1208');
  expect(explain).toEqual(cli(['diagnostics', 'dg1208']));
  const json = await run(page, 'platform check --json');
  expect(JSON.parse(json.output)).toEqual(JSON.parse(cli(['check', 'templates/todo', '--json']).output));
  const unknown = await run(page, 'platform chek');
  expect(unknown).toEqual(cli(['chek']));
  expect(unknown.code).toBe(2);
  await testInfo.attach('terminal offline', { body: await page.screenshot({ path: testInfo.outputPath('terminal-offline.png') }), contentType: 'image/png' });
});

test('while the boot is pending (StackBlitz does not answer) the panel says it is starting, and commands run in the browser', async ({ page }) => {
  // Requests to StackBlitz hang instead of failing: neither the preflight nor the boot settles.
  const pending: string[] = [];
  await page.route((url) => /stackblitz|webcontainer/.test(url.hostname), (route) => void pending.push(route.request().url()));
  await openTemplate(page);
  await page.getByRole('tab', { name: 'Terminal' }).click();
  await expect(page.getByTestId('terminal-mode')).toHaveText('In-browser commands — WebContainer starting…');
  expect(await run(page, 'platform check')).toEqual(cli(['check', 'templates/todo']));
  // Running a command changed nothing: still starting, or (when the check outlasted the boot's 15 s on
  // a loaded machine, seen in CI) the boot's own timeout, never anything else.
  await expect(page.getByTestId('terminal-mode')).toHaveText(/^In-browser commands — WebContainer (starting…|unavailable: boot timed out after 15 s)/);
  expect(pending.some((url) => url.startsWith('https://stackblitz.com/headless'))).toBe(true);
});

test('a failing test, a Node-only command, help, history and Ctrl-C in the in-browser terminal', async ({ page }) => {
  await abortWebContainerHosts(page);
  await openTemplate(page);
  await page.getByRole('tab', { name: 'Terminal' }).click();

  // The terminal reads the project as it is now: a broken assertion fails one test.
  await page.getByRole('treeitem', { name: 'todos.test.ts', exact: true }).click();
  await page.locator('.cm-content').evaluate((el) => {
    const view = (el as unknown as { cmTile: { root: { view: { state: { doc: { toString(): string; length: number } }; dispatch(spec: unknown): void } } } }).cmTile.root.view;
    const text = view.state.doc.toString().replace('expect(todos).toHaveLength(1);', 'expect(todos).toHaveLength(2);');
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
  });
  await page.getByRole('tab', { name: 'Terminal' }).click();
  const failing = await run(page, 'platform test');
  expect(failing.code).toBe(1);
  expect(failing.output.split('\n').at(-1)).toBe('5 passed, 1 failed');
  expect(failing.output).toContain('✗ tests/todos.test.ts:6:');
  expect(failing.output).toContain('error DG1904:');

  const only = await run(page, 'platform test --only "owners see only their own todos"');
  expect(only.output.split('\n').at(-1)).toBe('1 passed, 0 failed');

  const deploy = await run(page, 'platform deploy');
  expect(deploy.code).toBe(2);
  expect(deploy.output).toMatch(/^platform deploy needs Node: it runs in the terminal when a WebContainer is available/);

  const help = await run(page, 'help');
  expect(help.output).toContain('platform check [directory]');
  expect(help.output).toContain('Ctrl-C');
  const notFound = await run(page, 'ls');
  expect(notFound).toEqual({ output: 'ls: command not found. This terminal runs platform <command>; type help for the list.', code: 127 });

  // ↑ brings back the last line; Ctrl-C drops a typed line without running it.
  await page.locator('.terminal-host').click();
  await page.keyboard.type('platform bui');
  await page.keyboard.press('Control+C');
  await expect(page.locator('.terminal-host .xterm-rows')).toContainText('$ platform bui^C$');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  const before = await page.getByTestId('terminal-last-output').textContent();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('terminal-last-output')).not.toHaveText(before ?? '');
  await expect(page.getByTestId('terminal-last-output')).toContainText('platform help [command]');
});

test('without cross-origin isolation the panel says so and never contacts StackBlitz; commands still run', async ({ page }) => {
  const aborted = await abortWebContainerHosts(page);
  // Serve the playground's own responses without COOP/COEP, as a static host without the headers would.
  await page.route((url) => url.origin === new URL(test.info().project.use.baseURL!).origin, async (route) => {
    const response = await route.fetch();
    const headers = { ...response.headers() };
    delete headers['cross-origin-opener-policy'];
    delete headers['cross-origin-embedder-policy'];
    await route.fulfill({ response, headers });
  });
  await openTemplate(page);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
  await page.getByRole('tab', { name: 'Terminal' }).click();
  await expect(page.getByTestId('terminal-mode')).toHaveText(/^In-browser commands — WebContainer unavailable: this page is not cross-origin isolated/);
  expect(await run(page, 'platform check')).toEqual(cli(['check', 'templates/todo']));
  expect(aborted).toEqual([]);
});
