import { expect, test, type Page } from '@playwright/test';
import { afterRebuild, openTemplate, replaceFile } from './helpers';

test.describe.configure({ timeout: 120_000 });

/** Client code that tries everything it must not be able to do, and shows what happened. */
const PROBE = `import { render } from 'preact';

async function attempt(name: string, run: () => unknown): Promise<string> {
  try {
    const value = await run();
    return name + ': REACHED ' + String(value).slice(0, 60);
  } catch (error) {
    return name + ': blocked';
  }
}

async function probe() {
  const results = [
    await attempt('indexedDB', () => new Promise((resolve, reject) => {
      const request = indexedDB.open('platform-playground');
      request.onsuccess = () => resolve('opened');
      request.onerror = () => reject(request.error);
    })),
    await attempt('cookie', () => { const c = document.cookie; if (!c.includes('secret')) throw new Error('no secret'); return c; }),
    await attempt('parent DOM', () => parent.document.title),
    await attempt('top DOM', () => top!.document.body.innerHTML),
    await attempt('localStorage', () => localStorage.getItem('platform-theme') ?? 'readable'),
    await attempt('fetch', async () => (await fetch(location.ancestorOrigins?.[0] ?? 'http://127.0.0.1:4173/')).status),
    await attempt('fetch absolute', async () => (await fetch('http://127.0.0.1:4173/app.manifest.schema.json')).status),
    await attempt('xhr', () => new Promise((resolve, reject) => { const x = new XMLHttpRequest(); x.open('GET', 'http://127.0.0.1:4173/'); x.onload = () => resolve(x.status); x.onerror = () => reject(new Error('x')); x.send(); })),
    await attempt('websocket', () => new Promise((resolve, reject) => { const w = new WebSocket('ws://127.0.0.1:4173/'); w.onopen = () => resolve('open'); w.onerror = () => reject(new Error('w')); })),
  ];
  return results;
}

function App() {
  return <ul id="results" />;
}

render(<App />, document.getElementById('app')!);
void probe().then((results) => {
  const list = document.getElementById('results')!;
  for (const line of results) {
    const item = document.createElement('li');
    item.textContent = line;
    list.appendChild(item);
  }
  list.setAttribute('data-done', 'yes');
});
`;

const LOOP = `import { render } from 'preact';
render(<p id="about-to-loop">looping</p>, document.getElementById('app')!);
setTimeout(() => { for (;;) {} }, 200);
`;

async function replaceClient(page: Page, text: string) {
  // "Ready" shows before the edit's quiet window ends too: wait for the new build in the preview.
  await afterRebuild(page, () => replaceFile(page, 'main.tsx', () => text));
}

test('code in the preview cannot read the playground\'s storage, cookies or DOM, nor reach the network', async ({ page, context }, testInfo) => {
  await context.addCookies([{ name: 'playground', value: 'secret-cookie', url: 'http://127.0.0.1:4173' }]);
  await openTemplate(page);
  await replaceClient(page, PROBE);
  const results = page.frameLocator('iframe.preview-frame').locator('#results[data-done="yes"] li');
  await expect(results).toHaveCount(9, { timeout: 20_000 });
  const lines = await results.allInnerTexts();
  await testInfo.attach('probe results', { body: lines.join('\n'), contentType: 'text/plain' });
  for (const line of lines) expect(line, line).toMatch(/: blocked$/);
});

test('a loop in client code leaves the page answering, and the preview that stopped answering is ended and reported', async ({ page }) => {
  await openTemplate(page);
  await replaceClient(page, LOOP);
  // The preview's thread is busy from here on (so the frame itself cannot be queried).
  await page.waitForTimeout(1000);
  // The playground's own page keeps answering (a frozen page never would; speed is the bench's to measure).
  expect(await page.evaluate(() => 1 + 1)).toBe(2);
  // The stuck preview is stopped, and says so.
  await expect(page.getByText('The preview stopped responding')).toBeVisible({ timeout: 15_000 });
  // The page handles its events at once. (Pointer input dispatched through the DevTools protocol stays
  // blocked while the looping process lives on after its frame is removed: see the closing note.)
  await page.getByRole('tab', { name: 'Events' }).dispatchEvent('click');
  await expect(page.locator('.events li[data-kind="preview.unresponsive"]').first()).toBeVisible();
});
