import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test, type Page } from './profile';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { openTemplate, preview } from './helpers';

const run = promisify(execFile);

// Each test starts the compiler worker (esbuild-wasm and TypeScript) in a fresh page, on 2 cores.
test.describe.configure({ timeout: 180_000 });

/** Drops a file on the playground as a person would: a DataTransfer made in the page, dragover then drop. */
async function dropFile(page: Page, name: string, bytes: Uint8Array, type = 'application/zip') {
  await page.evaluate(
    ({ name, data, type }) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(data)], name, { type }));
      const target = document.querySelector('.main') ?? document.body;
      target.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    },
    { name, data: [...bytes], type },
  );
}

test('Download zip gives one folder named after the app that platform check and platform test accept as is', async ({ page }, testInfo) => {
  await openTemplate(page);
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download zip' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('todo.zip');
  const zipPath = testInfo.outputPath('todo.zip');
  await download.saveAs(zipPath);
  const entries = unzipSync(new Uint8Array(await readFile(zipPath)));
  const names = Object.keys(entries).sort();
  expect(names).toContain('todo/app.manifest.json');
  expect(names).toContain('todo/tests/todos.test.ts');
  expect(names.every((name) => name.startsWith('todo/'))).toBe(true);
  expect(JSON.parse(new TextDecoder().decode(entries['todo/app.manifest.json']))).toMatchObject({ name: 'todo' });

  // Extracted as it is, the CLI checks it and runs its tests.
  const root = testInfo.outputPath('extracted');
  for (const [name, bytes] of Object.entries(entries)) {
    if (name.endsWith('/')) continue;
    await mkdir(dirname(join(root, name)), { recursive: true });
    await writeFile(join(root, name), bytes);
  }
  const check = await run('npx', ['platform', 'check', join(root, 'todo')], { cwd: process.cwd() });
  expect(check.stdout).toMatch(/^✓ todo: .*no errors\.$/m);
  const tested = await run('npx', ['platform', 'test', join(root, 'todo')], { cwd: process.cwd(), timeout: 120_000 });
  expect(tested.stdout.trim().split('\n').at(-1)).toBe('6 passed, 0 failed');
});

test('a zip dropped on the playground opens as a new project; bad zips show their code and change nothing', async ({ page }, testInfo) => {
  await openTemplate(page);
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download zip' }).click();
  const zipPath = testInfo.outputPath('todo.zip');
  await (await downloading).saveAs(zipPath);
  const first = page.url();

  // Edited after download, so the dropped copy is told apart from the original by its title.
  const entries = unzipSync(new Uint8Array(await readFile(zipPath)));
  const main = new TextDecoder().decode(entries['todo/src/client/main.tsx']);
  entries['todo/src/client/main.tsx'] = strToU8(main.replace('<h1>Todos</h1>', '<h1>Dropped todos</h1>'));
  entries['todo/node_modules/left-out/index.js'] = strToU8('module.exports = 1;');
  await dropFile(page, 'todo.zip', zipSync(entries));
  // The page is already at a project's URL: wait for it to become another one (the drop is read asynchronously).
  await expect.poll(() => page.url(), { timeout: 30_000 }).not.toBe(first);
  await expect(page).toHaveURL(/#\/p\/p_/);
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
  await expect(preview(page).getByRole('heading', { name: 'Dropped todos' })).toBeVisible();
  await expect(page.getByTestId('open-result')).toContainText('left out: todo/node_modules/left-out/index.js');
  await testInfo.attach('opened from a dropped zip', { body: await page.screenshot(), contentType: 'image/png' });

  // Bad zips: a clear code, and no new project.
  const dropped = page.url();
  const bad: Array<[string, Uint8Array, string]> = [
    ['not a zip', strToU8('this is not a zip archive at all'), 'zip_corrupt'],
    ['a path out of its folder', zipSync({ '../evil.ts': strToU8('export {};') }), 'zip_unsafe_path'],
    ['only skipped files', zipSync({ '__MACOSX/x': strToU8('x'), 'a/.git/config': strToU8('x') }), 'zip_empty'],
  ];
  for (const [what, bytes, code] of bad) {
    await dropFile(page, `${what}.zip`, bytes);
    await expect(page.getByTestId('open-result'), what).toHaveAttribute('data-code', code);
    await expect(page.getByTestId('open-result')).toContainText(`${code}:`);
  }
  await testInfo.attach('a bad zip', { body: await page.screenshot(), contentType: 'image/png' });
  await dropFile(page, 'notes.txt', strToU8('hello'), 'text/plain');
  await expect(page.getByTestId('open-result')).toHaveAttribute('data-code', 'drop_unsupported');
  expect(page.url()).toBe(dropped);

  await page.goto('/#/');
  await expect(page.locator('.project-list > li')).toHaveCount(2);
});

test('a downloaded zip carries the data: dropped again, the Files project downloads its stored object; a hostile data file is refused', async ({ page }, testInfo) => {
  await openTemplate(page, 'files');
  await preview(page).locator('input[type="file"]').setInputFiles({ name: 'hello.txt', mimeType: 'text/plain', buffer: Buffer.from('hello from a teacher') });
  await expect(preview(page).getByRole('link', { name: 'hello.txt' })).toBeVisible();
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download zip' }).click();
  const zipPath = testInfo.outputPath('files.zip');
  await (await downloading).saveAs(zipPath);
  const entries = unzipSync(new Uint8Array(await readFile(zipPath)));
  const data = JSON.parse(new TextDecoder().decode(entries['files/platform-data.json'])) as { protocol: string; state: { protocol: string }; objects: Array<{ data: string; contentType: string }> };
  expect(data.protocol).toBe('platform.project-data.v0');
  expect(data.state.protocol).toBe('platform.state-export.v0');
  expect(data.objects).toHaveLength(1);
  expect(Buffer.from(data.objects[0]!.data, 'base64url').toString()).toBe('hello from a teacher');

  // Dropped on the start page: a new project whose app has the record and the object.
  await page.goto('/#/');
  await expect(page.locator('.project-list > li')).toHaveCount(1);
  await dropFile(page, 'files.zip', new Uint8Array(await readFile(zipPath)));
  await expect(page).toHaveURL(/#\/p\/p_/, { timeout: 30_000 });
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
  const link = preview(page).getByRole('link', { name: 'hello.txt' });
  await expect(link).toBeVisible();
  const answer = await link.evaluate(async (a: HTMLAnchorElement) => {
    const response = await fetch(a.getAttribute('href')!);
    return `${response.status} ${await response.text()}`;
  });
  expect(answer).toBe('200 hello from a teacher');
  await expect(page.getByRole('treeitem', { name: 'app.manifest.json', exact: true })).toBeVisible();
  await expect(page.getByRole('treeitem', { name: 'platform-data.json', exact: true })).toHaveCount(0);
  const opened = page.url();

  // A data file whose object has a key that is not a storage key: refused whole, nothing opened.
  const hostile = { ...data, objects: [{ ...data.objects[0]!, key: '../secret' }] };
  await dropFile(page, 'hostile.zip', zipSync({ ...entries, 'files/platform-data.json': strToU8(JSON.stringify(hostile)) }));
  await expect(page.getByTestId('open-result')).toHaveAttribute('data-code', 'zip_data_invalid');
  await expect(page.getByTestId('open-result')).toContainText('stored_objects_invalid');
  expect(page.url()).toBe(opened);
  await page.goto('/#/');
  await expect(page.locator('.project-list > li')).toHaveCount(2);
});
