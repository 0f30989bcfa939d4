/**
 * Accounts with passkeys in Chromium, with a virtual authenticator (CDP WebAuthn: ctap2, internal,
 * resident keys, user verification): a person creates an account at the control plane's /account,
 * becomes a builder with the operator secret, runs `platform auth login` (the CLI in process), signs in
 * on /device with the passkey and approves; the CLI is signed in as that builder. And what the rpID of
 * the control plane (`localhost`) means for hosted apps' origins (`app-…--preview.localhost`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type BrowserContext, type CDPSession, type Page } from './profile';
import { startControlPlane, type Started } from '../src/control-plane/main';
import { platformOverLoopback } from '../src/testing/control-plane';

test.describe.configure({ timeout: 120_000 });

let plane: Started;
let work: string;

test.beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-e2e-accounts-'));
  plane = await startControlPlane({ dataDir: join(work, 'data'), port: 0, devicePollMs: 100 });
});

test.afterAll(async () => {
  await plane?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** A platform authenticator on `page` that holds discoverable passkeys and verifies its user. */
async function virtualAuthenticator(context: BrowserContext, page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return { cdp, authenticatorId };
}

const shots = () => mkdtempSync(join(tmpdir(), 'platform-accounts-shots-'));

test('a person registers a passkey, becomes a builder, and approves platform auth login with it', async ({ page, context }, testInfo) => {
  const dir = shots();
  const { cdp, authenticatorId } = await virtualAuthenticator(context, page);

  // Register at the control plane: a name, and a passkey the authenticator makes.
  await page.goto(`${plane.url}/account`);
  await page.screenshot({ path: join(dir, 'account-signed-out.png'), fullPage: true });
  await page.getByLabel('Name').fill('ada');
  await page.getByRole('button', { name: 'Create account with a passkey' }).click();
  await expect(page.getByRole('heading', { name: /^ada/ })).toContainText('not a builder');
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0]).toMatchObject({ rpId: 'localhost', isResidentCredential: true });

  // Builder status, once, with the operator secret.
  await page.getByLabel('Operator secret').fill('not-the-secret');
  await page.getByRole('button', { name: 'Become a builder' }).click();
  await expect(page.getByRole('alert')).toContainText('The operator secret is wrong (4 tries left in this sign-in)');
  await page.getByLabel('Operator secret').fill(plane.plane.secrets.operatorSecret);
  await page.getByRole('button', { name: 'Become a builder' }).click();
  await expect(page.getByRole('status')).toHaveText('ada is now a builder.');
  await expect(page.getByRole('heading', { name: /^ada/ })).toContainText('builder');
  await expect(page.getByRole('table', { name: 'Passkeys' }).locator('tbody tr')).toHaveCount(1);
  await page.screenshot({ path: join(dir, 'account-builder.png'), fullPage: true });
  await testInfo.attach('account', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('button', { name: 'Sign in with a passkey' })).toBeVisible();

  // The terminal asks; the person opens the approval page it names and signs in with the passkey.
  let opened: (url: string) => void;
  const approvalUrl = new Promise<string>((resolve) => (opened = resolve));
  const login = platformOverLoopback(['auth', 'login'], {
    cwd: work,
    work,
    controlUrl: plane.url,
    compiler: () => Promise.reject(new Error('auth login builds nothing')),
    onStderr: (text) => {
      const url = /open (\S+)/.exec(text)?.[1];
      if (url) opened(url);
    },
  });
  const url = await approvalUrl;
  expect(url).toMatch(new RegExp(`^${plane.url}/device\\?code=[A-Z]{4}-[A-Z]{4}$`));
  await page.goto(url);
  await expect(page.getByLabel('Code shown in the terminal')).toHaveValue(new URL(url).searchParams.get('code')!);
  await expect(page.getByLabel('Operator secret')).toHaveCount(0);
  await page.screenshot({ path: join(dir, 'device-signed-out.png'), fullPage: true });
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page.getByText('Signed in as ada')).toBeVisible();
  await expect(page.getByLabel('Code shown in the terminal')).toHaveValue(new URL(url).searchParams.get('code')!);
  await page.screenshot({ path: join(dir, 'device-signed-in.png'), fullPage: true });
  await testInfo.attach('device', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('heading', { name: 'Signed in' })).toBeVisible();
  await expect(page.getByText('The terminal is now signed in as ada.')).toBeVisible();
  await page.screenshot({ path: join(dir, 'device-approved.png'), fullPage: true });

  const done = await login;
  expect(done.code).toBe(0);
  expect(done.envelope).toMatchObject({ ok: true, result: { builder: { name: 'ada', id: expect.stringMatching(/^bld_/) }, credential: 'session' } });
  const status = await platformOverLoopback(['auth', 'status'], { cwd: work, work, controlUrl: plane.url, compiler: () => Promise.reject(new Error('unused')) });
  expect(status.envelope.result).toMatchObject({ builder: { name: 'ada' }, credential: 'session', controlUrl: plane.url });
  // Two assertions (sign-ins) so far: the authenticator's counter moved, and the control plane kept it.
  const after = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials[0]!;
  expect(after.signCount).toBeGreaterThan(0);
  console.log(`screenshots in ${dir}`);
});

test('a passkey of rpId localhost works at the control plane but not from a hosted app origin (*.localhost)', async ({ page, context }) => {
  await virtualAuthenticator(context, page);
  const port = new URL(plane.url).port;
  const attempt = (rpId: string) =>
    page.evaluate(async (id) => {
      try {
        await navigator.credentials.create({
          publicKey: {
            rp: { id, name: 'probe' },
            user: { id: new Uint8Array([1, 2, 3]), name: 'probe', displayName: 'probe' },
            challenge: new Uint8Array(32),
            pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
            authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
          },
        });
        await navigator.credentials.get({ publicKey: { rpId: id, challenge: new Uint8Array(32), userVerification: 'preferred' } });
        return 'ok';
      } catch (error) {
        return (error as Error).name;
      }
    }, rpId);
  await page.goto(`${plane.url}/account`);
  expect(await attempt('localhost')).toBe('ok');
  // A hosted app's origin (here an app that does not exist: the control plane answers 404, a page all the same).
  await page.goto(`http://app-aaaaaaaaaaaaaaaaaaaaaaaaaa--preview.localhost:${port}/`);
  expect(await page.evaluate(() => isSecureContext)).toBe(true);
  // Chromium: "The relying party ID is not a registrable domain suffix of, nor equal to the current domain".
  expect(await attempt('localhost')).toBe('SecurityError');
  // The app origin's own hostname is a valid rpId there.
  expect(await attempt(`app-aaaaaaaaaaaaaaaaaaaaaaaaaa--preview.localhost`)).toBe('ok');
});
