/**
 * Deploying from the playground to a real control plane on loopback (started here, on a free port,
 * with its own data directory): sign in with a device code a person approves on the control plane's
 * page with a passkey, deploy to preview, use the hosted app at its own *.localhost origin, promote,
 * and see both environments in the history, each deployment with when it was made and the one each
 * environment is live from marked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Locator, type Page } from './profile';
import { startControlPlane, type Started } from '../src/control-plane/main';
import { afterRebuild, openTemplate, replaceFile, violations } from './helpers';

test.describe.configure({ timeout: 180_000 });

let plane: Started;
let dataDir: string;

test.beforeAll(async ({}, testInfo) => {
  dataDir = mkdtempSync(join(tmpdir(), 'platform-e2e-control-'));
  // The playground under test is allowed by its real origin, whatever port E2E_PORT gave it.
  plane = await startControlPlane({ dataDir, port: 0, corsOrigins: [new URL(testInfo.project.use.baseURL!).origin] });
});

test.afterAll(async () => {
  await plane?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Everything a script of `page`'s origin can read where a credential could be kept: localStorage,
 * sessionStorage, document.cookie and every IndexedDB database (a CryptoKey is described by whether
 * it can be exported).
 */
function readableByScript(page: Page) {
  return page.evaluate(async () => {
    const describe = (value: unknown): unknown => {
      if (value instanceof CryptoKey) return { cryptoKey: value.type, extractable: value.extractable };
      if (Array.isArray(value)) return value.map(describe);
      if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, describe(v)]));
      return value;
    };
    const databases: Record<string, unknown> = {};
    for (const { name } of await indexedDB.databases()) {
      if (!name) continue;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(name);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      for (const store of [...db.objectStoreNames]) {
        const all = await new Promise<unknown[]>((resolve, reject) => {
          const request = db.transaction(store, 'readonly').objectStore(store).getAll();
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(request.error);
        });
        databases[`${name}/${store}`] = describe(all);
      }
      db.close();
    }
    const entries = (storage: Storage) => Object.fromEntries(Array.from({ length: storage.length }, (_, i) => storage.key(i)!).map((k) => [k, storage.getItem(k)]));
    return { localStorage: entries(localStorage), sessionStorage: entries(sessionStorage), cookie: document.cookie, indexedDB: databases };
  });
}

/**
 * A hostile local server on another loopback port (say another project's `npm run dev`): its page
 * tries to use the builder's credential against the control plane, and to have the browser send it
 * to itself. Resolves with what the page saw and the headers its server received.
 */
async function hostileVisit(page: Page, controlUrl: string) {
  const received: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    received.push(request.headers);
    response.setHeader('content-type', request.url === '/' ? 'text/html' : 'application/json');
    response.end(request.url === '/' ? '<!doctype html><title>another dev server</title><p>hostile</p>' : '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    // localhost, like the control plane: the same site, another origin.
    await page.goto(`http://localhost:${(server.address() as AddressInfo).port}/`);
    const seen = await page.evaluate(async (control) => {
      const attempt = async (run: () => Promise<Response>) => {
        try {
          const response = await run();
          return response.type === 'opaque' ? 'opaque' : `${response.status} ${await response.text()}`;
        } catch (error) {
          return `refused: ${String(error)}`;
        }
      };
      return {
        whoami: await attempt(() => fetch(`${control}/v0/auth/whoami`, { credentials: 'include' })),
        listApps: await attempt(() => fetch(`${control}/v0/apps`, { credentials: 'include' })),
        // A simple request (no preflight) that would change state, as a form could send it.
        createApp: await attempt(() => fetch(`${control}/v0/apps`, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{"name":"evil"}' })),
        // Cookies are not isolated by port: a cookie of localhost:<control> would come here too.
        ownServer: await attempt(() => fetch('/v0/auth/whoami', { credentials: 'include' })),
      };
    }, controlUrl);
    return { seen, received };
  } finally {
    server.close();
  }
}

/**
 * The history shows the deployment each environment is live from (the control plane's `serving` record),
 * and marks no other: checked against the records, by deployment id.
 */
async function expectLiveMarks(history: Locator) {
  const serving = await plane.plane.context.records.all('SELECT environment, deploymentId FROM serving');
  expect(serving.length).toBeGreaterThan(0);
  for (const environment of ['preview', 'production']) {
    const live = serving.find((row) => row.environment === environment);
    const marked = history.locator('tbody tr', { hasText: `live on ${environment}` });
    await expect(marked).toHaveCount(live ? 1 : 0);
    if (live) await expect(marked).toHaveAttribute('data-deployment', String(live.deploymentId));
  }
}

/** A history row's label: when (a <time> with the exact time in its datetime and title, said relatively) and its short id. */
async function expectLabelled(row: Locator) {
  const id = (await row.getAttribute('data-deployment'))!;
  expect(id).toMatch(/^dep_[a-z2-7]{26}$/);
  const recorded = (await plane.plane.context.records.get('SELECT createdAt FROM deployments WHERE id = ?', [id]))!;
  const when = row.locator('time');
  await expect(when).toHaveAttribute('datetime', new Date(Number(recorded.createdAt)).toISOString());
  await expect(when).toHaveAttribute('title', new RegExp(String(new Date(Number(recorded.createdAt)).getFullYear())));
  await expect(when).toHaveText(/^(now|\d+ seconds? ago|\d+ minutes? ago|1 hour ago)$/);
  await expect(row.locator(`code[title="${id}"]`)).toHaveText(id.slice(0, 12));
}

/** Opens the endpoints template's Deploy panel, pointed at the control plane at `url`. */
async function deployPanel(page: Page, url: string) {
  await openTemplate(page, 'endpoints');
  await page.getByRole('tab', { name: 'Deploy' }).click();
  const panel = page.getByRole('region', { name: 'Deploy' });
  await panel.getByLabel('Control plane').fill(url);
  await panel.getByRole('button', { name: 'Use', exact: true }).click();
  return panel;
}

test('deploy a template from the playground, use the hosted app, promote it', async ({ page, context }, testInfo) => {
  const panel = await deployPanel(page, plane.url);

  // Sign in: the panel shows a code; a person approves it on the control plane's page, signed in with a
  // passkey (Chromium's virtual authenticator) of an account made there and made a builder with the
  // operator secret.
  await panel.getByRole('button', { name: 'Sign in' }).click();
  const code = (await panel.getByLabel('Sign-in code').textContent())!.trim();
  const [approval] = await Promise.all([context.waitForEvent('page'), panel.getByRole('link', { name: 'the approval page' }).click()]);
  const cdp = await context.newCDPSession(approval);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', { options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true } });
  await expect(approval.locator('#code')).toHaveValue(new RegExp(code, 'i'));
  await approval.getByRole('link', { name: 'Create an account' }).click();
  await approval.getByLabel('Name').fill('ada');
  await approval.getByRole('button', { name: 'Create account with a passkey' }).click();
  await approval.getByLabel('Operator secret').fill(plane.plane.secrets.operatorSecret);
  await approval.getByRole('button', { name: 'Become a builder' }).click();
  await expect(approval.getByRole('status')).toHaveText('ada is now a builder.');
  await approval.getByRole('link', { name: /Go back to approve/ }).click();
  await expect(approval.getByText('Signed in as ada')).toBeVisible();
  await expect(approval.locator('#code')).toHaveValue(new RegExp(code, 'i'));
  await approval.getByRole('button', { name: 'Approve' }).click();
  await expect(approval.getByRole('heading', { name: 'Signed in' })).toBeVisible();
  await approval.close();
  await expect(panel.locator('.deploy-row', { hasText: 'Signed in as' })).toContainText('Signed in as ada', { timeout: 30_000 });

  // No credential is readable by a script of the playground's origin: no token anywhere, and the one
  // key it keeps cannot be exported.
  const readable = await readableByScript(page);
  expect(JSON.stringify(readable)).not.toMatch(/xbs_|xst_/);
  expect(readable.cookie).toBe('');
  const keys = JSON.stringify(readable.indexedDB).match(/"cryptoKey":"private","extractable":(true|false)/g) ?? [];
  expect(keys).toEqual(['"cryptoKey":"private","extractable":false']);
  const signedInShot = testInfo.outputPath('deploy-panel-signed-in.png');
  await panel.screenshot({ path: signedInShot });
  await testInfo.attach('signed in', { path: signedInShot, contentType: 'image/png' });

  // A page of another local server cannot use it: CORS refuses its origin, the control plane refuses
  // its requests, and the browser sends it nothing to keep.
  const hostilePage = await context.newPage();
  const { seen, received } = await hostileVisit(hostilePage, plane.url);
  await hostilePage.close();
  expect(seen.whoami).toMatch(/^refused: TypeError/);
  expect(seen.listApps).toMatch(/^refused: TypeError/);
  expect(seen.createApp).toBe('opaque');
  expect(await plane.plane.context.records.all("SELECT id FROM apps WHERE name = 'evil'")).toEqual([]);
  expect(received.map((headers) => headers.cookie ?? '').join('')).not.toMatch(/xbs_|xst_|xbk_/);
  expect(received.every((headers) => !/xbs_|xst_/.test(JSON.stringify(headers)))).toBe(true);

  // Deploy to preview: built in the browser, verified and kept by the control plane.
  await panel.getByRole('button', { name: 'Deploy to preview' }).click();
  const previewLink = panel.locator('.deploy-urls li', { hasText: 'preview' }).getByRole('link');
  await expect(previewLink).toHaveAttribute('href', /^http:\/\/app-[a-z0-9]+--preview\.localhost:\d+/, { timeout: 60_000 });
  const deployedShot = testInfo.outputPath('deployed.png');
  await page.screenshot({ path: deployedShot });
  await testInfo.attach('deployed', { path: deployedShot, contentType: 'image/png' });

  // The hosted app, served by the control plane at its own origin, as a guest visitor.
  const hosted = await context.newPage();
  await hosted.goto((await previewLink.getAttribute('href'))!);
  await expect(hosted.getByRole('heading', { name: 'Endpoints and streams' })).toBeVisible();
  const [visit] = await Promise.all([hosted.waitForResponse((r) => r.url().includes('/api/visits/home')), hosted.getByRole('button', { name: 'POST /api/visits/home' }).click()]);
  expect(visit.status(), await visit.text()).toBe(201);
  await expect(hosted.getByText('1 visits')).toBeVisible();
  await hosted.getByRole('button', { name: 'Stream GET /api/count/20' }).click();
  await expect(hosted.locator('pre')).toHaveText(/ 19 20$/);
  await testInfo.attach('hosted app', { body: await hosted.screenshot(), contentType: 'image/png' });

  // The owner sees the environment's recent calls, with a failed one's error, in the panel.
  const failed = await hosted.evaluate(async () => (await fetch('/_platform/v0/query/no.such', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":{}}' })).status);
  expect(failed).toBe(404);
  const previewItem = panel.locator('.deploy-urls li[data-environment="preview"]');
  await previewItem.getByRole('button', { name: 'Refresh' }).click();
  const calls = previewItem.getByRole('list', { name: 'Recent calls' });
  await expect(calls).toContainText('POST /api/visits/home 201');
  await expect(calls).toContainText('query no.such 404');
  await expect(calls).toContainText('not_found: There is no query named "no.such".');
  await expect(previewItem).toContainText(/Serves sha256:.*\(deploy\)\. \d+ recent calls, 1 failed\./);

  // Promote: production serves the same artifact, with data of its own.
  await panel.getByRole('button', { name: 'Promote to production' }).click();
  const productionLink = panel.locator('.deploy-urls li', { hasText: 'production' }).getByRole('link');
  await expect(productionLink).toHaveAttribute('href', /^http:\/\/app-[a-z0-9]+\.localhost:\d+/, { timeout: 60_000 });
  await hosted.goto((await productionLink.getAttribute('href'))!);
  await expect(hosted.getByRole('heading', { name: 'Endpoints and streams' })).toBeVisible();
  await expect(hosted.getByText('0 visits')).toBeVisible();
  const history = panel.getByRole('table', { name: 'Deployments' });
  await expect(history).toContainText('production');
  await expect(history.locator('tbody tr')).toHaveCount(2);
  await expect(history.locator('tbody tr').nth(0)).toContainText('live on production');
  await expect(history.locator('tbody tr').nth(1)).toContainText('live on preview');
  await expectLiveMarks(history);
  await testInfo.attach('promoted', { body: await page.screenshot(), contentType: 'image/png' });

  // A second version in preview. "Roll back to this" is offered only for what an environment served
  // and no longer serves: the first preview deployment, never the new one for production (that would
  // be a promotion without review).
  await afterRebuild(page, () => replaceFile(page, 'main.tsx', (text) => text.replace('Endpoints and streams', 'Endpoints, version 2')));
  await page.getByRole('tab', { name: 'Deploy' }).click();
  await panel.getByRole('button', { name: 'Deploy to preview' }).click();
  await expect(history.locator('tbody tr')).toHaveCount(3, { timeout: 60_000 });
  const rows = history.locator('tbody tr');
  await expect(rows.nth(0)).toContainText('preview');
  await expect(rows.nth(0).getByRole('button', { name: 'Roll back to this' })).toHaveCount(0);
  await expect(rows.nth(1)).toContainText('production');
  await expect(rows.nth(1).getByRole('button', { name: 'Roll back to this' })).toHaveCount(0);
  await expect(rows.nth(2)).toContainText('preview');
  await rows.nth(2).getByRole('button', { name: 'Roll back to this' }).click();
  await expect(panel.getByRole('status')).toContainText('Roll back preview: done.', { timeout: 60_000 });
  await hosted.goto((await previewLink.getAttribute('href'))!);
  await expect(hosted.getByRole('heading', { name: 'Endpoints and streams' })).toBeVisible();
  await expect(history.locator('tbody tr').first()).toContainText('rollback');
  await testInfo.attach('rolled back', { body: await page.screenshot(), contentType: 'image/png' });

  // Each deployment says when it was made and its id; the rollback is what preview is live from, not
  // the first deployment of the same artifact, and production is still live from the promotion.
  await expect(rows).toHaveCount(4);
  for (let i = 0; i < 4; i++) await expectLabelled(rows.nth(i));
  await expect(rows.nth(0)).toContainText('live on preview');
  await expect(rows.nth(2)).toContainText('live on production');
  await expect(rows.nth(3)).not.toContainText('live on');
  await expectLiveMarks(history);
  // Tall enough for the whole history in the screenshots.
  await page.setViewportSize({ width: 1280, height: 1200 });
  await history.scrollIntoViewIfNeeded();
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    const shot = testInfo.outputPath(`deploy-history-${theme}.png`);
    await panel.screenshot({ path: shot });
    await testInfo.attach(`history, ${theme}`, { path: shot, contentType: 'image/png' });
    expect(await violations(page)).toEqual([]);
  }
});

test('a control plane URL where nothing answers is named, with how to start one', async ({ page }) => {
  // A port nothing listens on: taken, then let go.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  const url = `http://localhost:${port}`;
  const panel = await deployPanel(page, url);
  await panel.getByRole('button', { name: 'Sign in' }).click();
  const alert = panel.getByRole('alert');
  await expect(alert).toContainText(`The control plane at ${url} could not be reached`);
  await expect(alert).toContainText('Start it with npm start');
  await expect(alert).not.toContainText('CORS');
});

test('a control plane that does not allow this playground\'s origin is named as a CORS refusal', async ({ page }) => {
  const strictDir = mkdtempSync(join(tmpdir(), 'platform-e2e-cors-'));
  const strict = await startControlPlane({ dataDir: strictDir, port: 0, corsOrigins: ['http://localhost:1'] });
  try {
    const panel = await deployPanel(page, strict.url);
    await panel.getByRole('button', { name: 'Sign in' }).click();
    const alert = panel.getByRole('alert');
    await expect(alert).toContainText('CORS');
    await expect(alert).toContainText('--playground-origin');
    await expect(alert).not.toContainText('could not be reached');
  } finally {
    await strict.stop();
    rmSync(strictDir, { recursive: true, force: true });
  }
});
