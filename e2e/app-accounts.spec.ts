/**
 * People signing in to a deployed app, in Chromium: a builder deploys team-board (over the control
 * plane's HTTP API, built here as `platform deploy` builds it); two people, each in their own browser
 * with a virtual authenticator, press the app's Sign in, make an account with a passkey on the control
 * plane's page, confirm "Sign in to team-board as …" and come back signed in. One creates a workspace
 * and invites the other by link; both then see the same cards, and a card one adds appears in the
 * other's page by itself (live updates). A third person sees none; a guest is still a guest. Signing
 * in again later needs no passkey while the control plane's session lives. And in the playground, where
 * people are personas, the same template's Sign in says to switch persona.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test, type Browser, type Page } from './profile';
import { FileCredentialStore } from '../src/adapters/node/credentials';
import { compiler, deployOverHttp, templateFiles } from '../src/testing/control-plane-apps';
import { startControlPlane, type Started } from '../src/control-plane/main';
import { signIn as builderSignIn, platformOverLoopback } from '../src/testing/control-plane';
import { openTemplate, preview } from './helpers';

test.describe.configure({ timeout: 180_000 });

let plane: Started;
let work: string;
let board: string;
/** Where the screenshots go (made in the worker that runs the tests). */
let shots: string;

test.describe('a deployed app', () => {
  test.beforeAll(async () => {
    test.setTimeout(180_000);
    work = mkdtempSync(join(tmpdir(), 'platform-e2e-app-accounts-'));
    shots = mkdtempSync(join(tmpdir(), 'platform-app-accounts-shots-'));
    plane = await startControlPlane({ dataDir: join(work, 'data'), port: 0 });
    // The builder deploys team-board to preview, as `platform deploy` does.
    const token = await builderSignIn(plane.plane, 'builder');
    board = await deployOverHttp(plane.url, token, 'team-board', templateFiles('team-board'));
  });

  test.afterAll(async () => {
    await plane?.stop();
    rmSync(work, { recursive: true, force: true });
    console.log(`screenshots in ${shots}`);
  });

  /** A person's own browser (cookies of their own) with a platform authenticator that keeps passkeys. */
  async function personPage(browser: Browser): Promise<Page> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', { options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true } });
    return page;
  }

  /** On the control plane's sign-in page: a new account with a passkey, then the confirmation, then back to the app. */
  async function registerAndConfirm(page: Page, name: string, shot?: string, app = 'team-board', origin = board): Promise<void> {
    await expect(page.getByRole('heading', { name: `Sign in to ${app}` })).toBeVisible();
    expect(new URL(page.url()).origin).toBe(plane.url);
    if (shot) await page.screenshot({ path: join(shots, `${shot}-signed-out.png`), fullPage: true });
    await page.getByLabel('Name').fill(name);
    await page.getByRole('button', { name: 'Create an account with a passkey' }).click();
    await confirm(page, name, shot, app, origin);
  }

  async function confirm(page: Page, name: string, shot?: string, app = 'team-board', origin = board): Promise<void> {
    await expect(page.getByRole('heading', { name: `Sign in to ${app} as ${name}?` })).toBeVisible();
    if (shot) await page.screenshot({ path: join(shots, `${shot}-confirm.png`), fullPage: true });
    await page.getByRole('button', { name: `Continue as ${name}` }).click();
    await page.waitForURL((url) => url.origin === new URL(origin).origin);
  }

  test('the deployed todo template: a signed-in person adds todos; an optional field keeps them on redeploy; retyping title is DG5106 naming it while the old version serves', async ({ browser }) => {
    // The builder's project: the todo template, deployed with the real CLI (in process, over loopback).
    const project = join(work, 'todo');
    for (const [path, text] of Object.entries(templateFiles('todo'))) {
      mkdirSync(dirname(join(project, path)), { recursive: true });
      writeFileSync(join(project, path), text);
    }
    const token = await builderSignIn(plane.plane, 'todo-builder');
    await new FileCredentialStore(join(work, 'config')).write(plane.url, { token, builder: { id: 'bld_x', name: 'todo-builder' }, createdAt: new Date().toISOString() });
    const cli = (args: string[]) => platformOverLoopback(args, { cwd: project, work, controlUrl: plane.url, compiler });
    const deployed = await cli(['deploy']);
    expect(deployed.envelope, JSON.stringify(deployed.envelope.diagnostics)).toMatchObject({ ok: true });
    const url = deployed.envelope.result.url as string;

    // A person signs in on the hosted app and adds todos (a guest is refused: todos.add needs a user).
    const tess = await personPage(browser);
    await tess.goto(url);
    await tess.getByRole('button', { name: 'Sign in' }).click();
    await registerAndConfirm(tess, 'tess', undefined, 'todo', url);
    for (const title of ['milk', 'eggs']) {
      await tess.getByLabel('New todo').fill(title);
      await tess.getByRole('button', { name: 'Add' }).click();
      await expect(tess.getByText(title, { exact: true })).toBeVisible();
    }
    await expect(tess.getByText('2 left')).toBeVisible();

    // An optional field with a default: redeployed, every row kept.
    const manifestPath = join(project, 'app.manifest.json');
    const manifest = readFileSync(manifestPath, 'utf8');
    writeFileSync(manifestPath, manifest.replace('"done": {', '"priority": { "type": "number", "optional": true, "default": 0 },\n          "done": {'));
    const compatible = await cli(['deploy']);
    expect(compatible.envelope, JSON.stringify(compatible.envelope.diagnostics)).toMatchObject({ ok: true, diagnostics: [] });
    await tess.reload();
    await expect(tess.getByText('milk', { exact: true })).toBeVisible();
    await expect(tess.getByText('2 left')).toBeVisible();

    // title retyped to number (the server follows, so it builds): DG5106 naming the field; the old version serves.
    const serverPath = join(project, 'src/server/index.ts');
    writeFileSync(serverPath, readFileSync(serverPath, 'utf8').replace('title: string; done', 'title: number; done').replace('insert({ title: checked.title })', 'insert({ title: checked.title.length })'));
    writeFileSync(manifestPath, readFileSync(manifestPath, 'utf8').replace('"type": "string",\n            "maxLength": 200', '"type": "number"'));
    const refused = await cli(['deploy']);
    expect(refused.code).toBe(1);
    expect(refused.envelope.diagnostics.map((d: { code: string }) => d.code)).toEqual(['DG5106']);
    expect(refused.envelope.diagnostics[0].message).toContain('todos.title: is a string field holding values in 2 rows and would become a number field');
    await tess.reload();
    await expect(tess.getByText('eggs', { exact: true })).toBeVisible();
    await tess.getByLabel('New todo').fill('bread');
    await tess.getByRole('button', { name: 'Add' }).click();
    await expect(tess.getByText('3 left')).toBeVisible();
    await tess.context().close();
  });

  test('an account created before the page\'s script has loaded (a slow load) leaves the sign-in as it was, not "incomplete"', async ({ browser }) => {
    const page = await personPage(browser);
    // The page's own script never arrives: the browser submits the form itself.
    await page.route('**/account/assets/account.js', (route) => route.abort());
    await page.goto(board);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { name: 'Sign in to team-board' })).toBeVisible();
    await page.getByLabel('Name').fill('slow');
    await page.getByRole('button', { name: 'Create an account with a passkey' }).click();
    await page.waitForLoadState();
    await expect(page.getByRole('heading', { name: 'Cannot sign in' })).toHaveCount(0);
    await expect(page.getByRole('heading', { name: 'Sign in to team-board' })).toBeVisible();
    await page.context().close();
  });

  test('two people sign in to a deployed team-board, share a workspace by invitation and see each other’s cards live; a third sees none; a guest stays a guest', async ({ browser }, testInfo) => {
    // Ann: the app offers a guest to sign in; she makes an account with a passkey on the control plane.
    const ann = await personPage(browser);
    await ann.goto(`${board}/`);
    await expect(ann.getByText('You are a guest.')).toBeVisible();
    await ann.getByRole('button', { name: 'Sign in' }).click();
    await registerAndConfirm(ann, 'ann', 'ann');
    await expect(ann.getByRole('button', { name: 'Sign out' })).toBeVisible();
    await expect(ann.getByText('You are not a member of any workspace.')).toBeVisible();
    // The session cookie is HttpOnly: the app's page cannot read it.
    expect(await ann.evaluate(() => document.cookie)).not.toContain('__platform_session');
    const cookies = await ann.context().cookies(board);
    expect(cookies.find((c) => c.name === '__platform_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax', domain: new URL(board).hostname });

    // She creates a workspace, adds a card and invites someone.
    await ann.getByLabel('Workspace name').fill('Launch');
    await ann.getByRole('button', { name: 'Create workspace' }).click();
    await expect(ann.getByRole('button', { name: 'Launch', exact: true })).toBeVisible();
    await ann.getByLabel('New card').fill('Plan the launch');
    await ann.getByRole('button', { name: 'Add' }).click();
    await expect(ann.getByText('Plan the launch')).toBeVisible();
    await ann.getByRole('button', { name: 'Invite someone' }).click();
    const link = await ann.getByLabel('Invitation link').inputValue();
    expect(link).toMatch(new RegExp(`^${board}/__platform/join/xwi_`));
    await testInfo.attach('ann', { body: await ann.screenshot(), contentType: 'image/png' });

    // Ben opens the link in his own browser: he signs in on the way and joins.
    const ben = await personPage(browser);
    await ben.goto(link);
    await expect(ben.getByRole('heading', { name: 'Join the workspace “Launch”' })).toBeVisible();
    await ben.getByRole('link', { name: 'Sign in to join' }).click();
    await registerAndConfirm(ben, 'ben', 'ben');
    expect(ben.url()).toBe(link);
    await ben.screenshot({ path: join(shots, 'ben-join.png'), fullPage: true });
    await ben.getByRole('button', { name: 'Join “Launch”' }).click();
    await expect(ben.getByRole('button', { name: 'Launch', exact: true })).toBeVisible();
    await expect(ben.getByText('Plan the launch')).toBeVisible();

    // Live: a card one adds appears in the other's page by itself, both ways.
    await ben.getByLabel('New card').fill('Write the notes');
    await ben.getByRole('button', { name: 'Add' }).click();
    // Carried by Ann's live-update stream (a loaded machine may take a while; nothing is timed).
    await expect(ann.getByText('Write the notes')).toBeVisible({ timeout: 20_000 });
    await ann.getByLabel('New card').fill('Book the room');
    await ann.getByRole('button', { name: 'Add' }).click();
    await expect(ben.getByText('Book the room')).toBeVisible({ timeout: 20_000 });
    await ann.screenshot({ path: join(shots, 'ann-board.png'), fullPage: true });
    await ben.screenshot({ path: join(shots, 'ben-board.png'), fullPage: true });
    await testInfo.attach('ben', { body: await ben.screenshot(), contentType: 'image/png' });

    // The link was for one person: Cal cannot use it, and, signed in, sees no workspace and no card.
    const cal = await personPage(browser);
    await cal.goto(`${board}/`);
    await cal.getByRole('button', { name: 'Sign in' }).click();
    await registerAndConfirm(cal, 'cal');
    await expect(cal.getByText('You are not a member of any workspace.')).toBeVisible();
    await cal.goto(link);
    await expect(cal.locator('main')).toHaveAttribute('data-code', 'invite_used');
    await cal.goto(`${board}/`);
    await expect(cal.getByRole('button', { name: 'Sign out' })).toBeVisible();
    await expect(cal.getByText('You are not a member of any workspace.')).toBeVisible();
    await expect(cal.getByText('Plan the launch')).toHaveCount(0);
    await expect(cal.getByRole('button', { name: 'Launch' })).toHaveCount(0);

    // A guest is still a guest.
    const guest = await (await browser.newContext()).newPage();
    await guest.goto(`${board}/`);
    await expect(guest.getByText('You are a guest.')).toBeVisible();
    await expect(guest.getByText('You are not a member of any workspace.')).toBeVisible();
    await expect(guest.getByText('Plan the launch')).toHaveCount(0);
    expect(await guest.evaluate(async () => (await fetch('/__platform/auth/me')).json())).toMatchObject({ kind: 'guest', workspaces: [] });

    // Ann signs out and in again: the control plane still knows her (its session lives an hour), so no
    // passkey is asked, only the confirmation.
    await ann.getByRole('button', { name: 'Sign out' }).click();
    await expect(ann.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await expect(ann.getByText('Plan the launch')).toHaveCount(0);
    await ann.getByRole('button', { name: 'Sign in' }).click();
    await confirm(ann, 'ann', 'ann-again');
    await expect(ann.getByText('Plan the launch')).toBeVisible();
    // The pages' live connections end with their browsers, before the control plane stops.
    for (const one of [ann, ben, cal, guest]) await one.context().close();
  });
});

test('in the playground the preview’s persona is who the page is: Sign in says to switch persona, workspaces are the persona’s', async ({ page }) => {
  await openTemplate(page, 'team-board');
  // Alice is signed in (a persona of kind user) and holds ws-team and ws-alice.
  await expect(preview(page).getByRole('button', { name: 'Sign out' })).toBeVisible();
  await expect(preview(page).getByRole('button', { name: 'ws-alice' })).toBeVisible();
  // The personas' workspaces are fixed: creating one is refused, saying why.
  await preview(page).getByLabel('Workspace name').fill('Another');
  await preview(page).getByRole('button', { name: 'Create workspace' }).click();
  await expect(preview(page).getByRole('alert')).toContainText('switch the preview to another persona');
  // The guest persona is offered to sign in; doing so tells the person to switch persona.
  await page.getByRole('button', { name: 'guest' }).click();
  await expect(preview(page).getByText('You are a guest.')).toBeVisible();
  await preview(page).getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('tab', { name: 'Events' }).click();
  await expect(page.locator('.events li[data-kind="preview.notice"]').filter({ hasText: 'switch this preview to alice or bob' })).toHaveCount(1);
});
