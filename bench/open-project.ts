/**
 * How long a project takes to show its first preview when it is not a template as shipped (issue 31,
 * item 1): a reopened edited project, a bug-report link (a share link of an edited project with its
 * data), and generated projects of 50 and 200 files (BENCH_OPEN_FILES) opened from a share link and
 * from a zip, each against an untouched template opened in the same run. Each time runs from the
 * page's navigation (the zip: from its drop) to the `platform:preview-ready` mark, in a fresh profile
 * except the reopen (a reload); and the links again as a returning visitor opens them: a profile on disk
 * that has used the playground before, so the browser's cache holds the compiler and esbuild's compiled
 * wasm code.
 */
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { encodeShareLink } from '../src/core/share';
import { generatedProject } from './generated-project';
import { median, type Row } from './stats';

const RUNS = Number(process.env.BENCH_OPEN_RUNS ?? 5);
/** The generated projects' sizes in files: the issue's 200, and a smaller one, so a cost that grows with the files shows. */
const SIZES = (process.env.BENCH_OPEN_FILES ?? '50,200').split(',').map(Number);

async function previewReady(page: Page, timeoutMs = 300_000): Promise<number> {
  const handle = await page.waitForFunction(() => performance.getEntriesByName('platform:preview-ready')[0]?.startTime, undefined, { timeout: timeoutMs, polling: 20 });
  return (await handle.jsonValue()) as number;
}

/** When the type check of the first build answered, if it has (ms from navigation). */
async function checkDone(page: Page, timeoutMs = 300_000): Promise<number> {
  const handle = await page.waitForFunction(() => performance.getEntriesByName('platform:check-done')[0]?.startTime, undefined, { timeout: timeoutMs, polling: 50 });
  return (await handle.jsonValue()) as number;
}

/** In fresh profiles: navigation to `url` (after `before`) to the first preview, and to the check's answer. */
async function fresh(browser: Browser, open: (page: Page) => Promise<number>, withCheck = false): Promise<{ preview: number[]; check: number[] }> {
  const preview: number[] = [];
  const check: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const from = await open(page);
    preview.push((await previewReady(page)) - from);
    if (withCheck) check.push((await checkDone(page)) - from);
    await context.close();
  }
  return { preview, check };
}

/** How long a returning visitor's first visit stays open: Chromium writes the wasm's compiled code once enough of it has tiered up. */
const FIRST_VISIT_LINGER_MS = 12_000;

/**
 * A returning visitor: a profile on disk that opened `warmUp` (a link that bundles) once before, each run a
 * new browser over that profile, as a person opening a link days later would. The page's first preview
 * of each of `urls`, RUNS times each, in turns.
 */
async function returning(warmUp: string, urls: string[]): Promise<number[][]> {
  const profile = mkdtempSync(join(tmpdir(), 'bench-returning-'));
  const visit = async (url: string, linger: number): Promise<number> => {
    const context: BrowserContext = await chromium.launchPersistentContext(profile, { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
    try {
      const page = await context.newPage();
      await page.goto(url);
      const shown = await previewReady(page);
      if (linger) await page.waitForTimeout(linger);
      return shown;
    } finally {
      await context.close();
    }
  };
  try {
    await visit(warmUp, FIRST_VISIT_LINGER_MS);
    const times = urls.map((): number[] => []);
    for (let i = 0; i < RUNS; i++) for (const [at, url] of urls.entries()) times[at]!.push(await visit(url, 0));
    return times;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Drops a zip on the start page as a person would; returns the drop's time (ms from navigation). */
async function dropZip(page: Page, bytes: Uint8Array): Promise<number> {
  return page.evaluate(
    ({ data }) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(data)], 'generated.zip', { type: 'application/zip' }));
      const target = document.querySelector('.shell') ?? document.body;
      const at = performance.now();
      target.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      return at;
    },
    { data: [...bytes] },
  );
}

/** Replaces the heading of the todo client in CodeMirror (an edit as a person makes it). */
async function editHeading(page: Page, heading: string): Promise<void> {
  await page.getByRole('treeitem', { name: 'main.tsx' }).click();
  await page.locator('.cm-content').evaluate((el, text) => {
    const view = (el as unknown as { cmTile: { root: { view: { state: { doc: { toString(): string } }; dispatch(spec: unknown): void } } } }).cmTile.root.view;
    const doc = view.state.doc.toString();
    view.dispatch({ changes: { from: doc.indexOf('<h1>') + 4, to: doc.indexOf('</h1>'), insert: text } });
  }, heading);
  await page.frameLocator('iframe.preview-frame').getByRole('heading', { name: heading }).waitFor({ timeout: 120_000 });
}

export async function openProjectRows(browser: Browser, url: string): Promise<Row[]> {
  // The baseline: an untouched template, opened from the start page in a fresh profile.
  const template = await fresh(browser, async (page) => {
    await page.goto(url);
    await page.locator('[data-template="todo"]').click();
    return 0;
  });

  // An edited project with data: reopened (reloads of its page), and shared as a bug report.
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  await page.locator('[data-template="todo"]').click();
  await previewReady(page);
  await editHeading(page, 'Todos, edited');
  for (const title of ['first', 'second', 'third']) {
    await page.frameLocator('iframe.preview-frame').getByLabel('New todo').fill(title);
    await page.frameLocator('iframe.preview-frame').getByRole('button', { name: 'Add' }).click();
    await page.frameLocator('iframe.preview-frame').getByText(title, { exact: true }).waitFor();
  }
  // Its build checked and kept as the last good one.
  await page.getByTestId('problem-count').filter({ hasText: /^\d+$/ }).waitFor({ timeout: 120_000 });
  await page.waitForTimeout(500);
  const reopened: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await page.reload();
    reopened.push(await previewReady(page));
    await page.frameLocator('iframe.preview-frame').getByText('third', { exact: true }).waitFor();
    await page.getByTestId('compile-status').filter({ hasText: /^Ready/ }).waitFor({ timeout: 120_000 });
  }
  // The bug report's link is the share link with the data (src/core/share/bug-report.ts).
  await page.getByRole('button', { name: 'Share…' }).click();
  await page.getByTestId('share-size').filter({ hasText: 'with the data' }).waitFor();
  const reportLink = await page.getByTestId('share-link').inputValue();
  await context.close();
  const report = await fresh(browser, async (p) => {
    await p.goto(reportLink);
    return 0;
  });

  // Generated projects of each size, from a share link and from a zip.
  const generated: Array<{ size: number; link: { preview: number[]; check: number[] }; zipped: { preview: number[]; check: number[] } }> = [];
  const links = new Map<number, string>();
  for (const size of SIZES) {
    const files = generatedProject(size);
    const encoded = await encodeShareLink({ files, persona: 'alice', openFile: 'src/client/main.tsx', name: `generated ${size}` });
    if (!encoded.ok) throw new Error(encoded.error.message);
    links.set(size, `${url}#/share/${encoded.hash}`);
    const link = await fresh(
      browser,
      async (p) => {
        await p.goto(links.get(size)!);
        return 0;
      },
      true,
    );
    const zip = zipSync(Object.fromEntries(Object.entries(files).map(([path, text]) => [`generated/${path}`, strToU8(text)])));
    const zipped = await fresh(
      browser,
      async (p) => {
        await p.goto(url);
        await p.locator('[data-template="todo"]').waitFor();
        return dropZip(p, zip);
      },
      true,
    );
    generated.push({ size, link, zipped });
  }

  // The same links opened by a returning visitor (the warm-up: a link of another project, so nothing of these is kept but the compiler).
  const largest = Math.max(...SIZES);
  const warmUp = await encodeShareLink({ files: generatedProject(20), persona: 'alice', openFile: 'src/client/main.tsx', name: 'warm-up' });
  if (!warmUp.ok) throw new Error(warmUp.error.message);
  const [reportAgain, largestAgain] = await returning(`${url}#/share/${warmUp.hash}`, [reportLink, links.get(largest)!]);

  const base = median(template.preview);
  const row = (name: string, values: number[]): Row[] => [
    { name: `first preview: ${name}, p50 of ${values.length} (goal < 1000)`, value: median(values), unit: 'ms' },
    { name: `  ${name}, max`, value: Math.max(...values), unit: 'ms' },
    { name: `  ${name}, ratio to the untouched template`, value: median(values) / base, unit: 'x' },
  ];
  return [
    { name: `baseline, same run: first preview of an untouched template (todo), page load, p50 of ${template.preview.length}`, value: base, unit: 'ms' },
    ...row('reopened edited project (reload)', reopened),
    ...row('bug-report link (edited todo with 3 rows), fresh profile', report.preview),
    ...generated.flatMap(({ size, link, zipped }) => [
      ...row(`${size}-file share link, fresh profile`, link.preview),
      { name: `  ${size}-file share link: its type check answered, p50`, value: median(link.check), unit: 'ms' as const },
      ...row(`${size}-file zip, from its drop, fresh profile`, zipped.preview),
      { name: `  ${size}-file zip: its type check answered, from the drop, p50`, value: median(zipped.check), unit: 'ms' as const },
    ]),
    ...row('bug-report link, returning visitor (compiler and wasm code cached)', reportAgain!),
    ...row(`${largest}-file share link, returning visitor (compiler and wasm code cached)`, largestAgain!),
  ];
}
