/**
 * Live updates in the playground, as on a hosted page: each preview's client holds one live connection
 * from the app's `liveConnections` budget, and a mutation in one preview re-renders the other only
 * when that preview has a connection and a query that read the written table. With a budget of 0
 * there is no connection: a preview refreshes after its own mutations only.
 */
import { expect, test, type Page } from './profile';
import { afterRebuild, openTemplate, preview, replaceFile } from './helpers';

test.describe.configure({ timeout: 120_000 });

/** The runtime.call events the playground logged for a persona and an operation (`bob query me.workspaces`). */
const calls = (page: Page, text: string) => page.locator('.events li[data-kind="runtime.call"]').filter({ hasText: text });

/** Adds a card in preview `index`, as a person does. */
async function addCard(page: Page, index: number, title: string) {
  await preview(page, index).getByLabel('New card').fill(title);
  await preview(page, index).getByRole('button', { name: 'Add' }).click();
}

async function split(page: Page) {
  await page.getByLabel('split').check();
  await expect(page.locator('iframe.preview-frame')).toHaveCount(2);
  await expect(preview(page, 0).getByLabel('New card')).toBeVisible();
  await expect(preview(page, 1).getByLabel('New card')).toBeVisible();
  await page.getByRole('tab', { name: 'Events' }).click();
}

test('with liveConnections, a mutation in one preview re-renders the other, re-running only the queries that read the written table', async ({ page }, testInfo) => {
  await openTemplate(page, 'team-board');
  await split(page);
  // Both previews hold a live connection (team-board declares liveConnections 20).
  await expect(calls(page, 'alice live connection → 200')).not.toHaveCount(0);
  await expect(calls(page, 'bob live connection → 200')).not.toHaveCount(0);
  await expect(calls(page, 'bob query cards.list')).not.toHaveCount(0);
  const workspaceRuns = await calls(page, 'bob query me.workspaces').count();

  await addCard(page, 0, 'Plan the launch');
  await expect(preview(page, 0).getByText('Plan the launch')).toBeVisible();
  await expect(preview(page, 1).getByText('Plan the launch')).toBeVisible();

  // A second write, after which the first one's re-runs have all been answered (calls run in order).
  await addCard(page, 0, 'Write the notes');
  await expect(preview(page, 1).getByText('Write the notes')).toBeVisible();
  // me.workspaces read no table: no write re-ran it.
  expect(await calls(page, 'bob query me.workspaces').count()).toBe(workspaceRuns);
  await testInfo.attach('live', { body: await page.screenshot(), contentType: 'image/png' });
});

/**
 * What a preview frame sent of its queries and mutations: through the playground's page, or on its
 * direct port to the runtime worker. `late`: the counting began after the app had rendered, so calls
 * before it may be missing (Playwright runs its init script late in a frame's document at times: in a
 * frame loaded hidden ahead of its use, always after the bootstrap).
 */
type Sent = { relayed: { type: string; what: string }[]; direct: { name: string; live: string | null }[]; late: boolean };

/**
 * Counts, in every preview frame from its first script on, the queries and mutations it posts: on the
 * port the playground gave it (relayed by the page: a wire route's `fetch`, or a `call`) and on any
 * other port (the direct port to the runtime worker). The page's port is told apart when the counts are
 * read, as the port that also carries the page's other messages (`fetch`, `pong`, `loaded`): the init
 * script may run after the playground handed it over.
 */
async function countCalls(page: Page) {
  await page.addInitScript(() => {
    if (window === window.top) return;
    type Posted = { port: MessagePort; type: string; name?: string; path?: string; live?: string };
    const posted: Posted[] = [];
    const pagePorts = new Set<MessagePort>();
    const late = Boolean(document.getElementById('app')?.firstChild);
    addEventListener('message', (event) => {
      if ((event.data as { type?: string } | null)?.type === 'init' && event.ports[0]) pagePorts.add(event.ports[0]);
    }, true);
    const post = MessagePort.prototype.postMessage;
    MessagePort.prototype.postMessage = function (this: MessagePort, message: unknown, ...rest: unknown[]) {
      const m = (message ?? {}) as Omit<Posted, 'port'>;
      if (m.type !== 'call') pagePorts.add(this);
      posted.push({ port: this, type: String(m.type), name: m.name, path: m.path, live: m.live });
      return (post as (...args: unknown[]) => void).call(this, message, ...rest);
    } as typeof post;
    (globalThis as unknown as { __sent: () => Sent }).__sent = () => {
      const wire = (m: Posted) => m.type === 'fetch' && /^\/_platform\/v0\/(query|mutation)\//.test(String(m.path));
      return {
        relayed: posted.filter((m) => pagePorts.has(m.port) && (m.type === 'call' || wire(m))).map((m) => ({ type: m.type, what: String(m.name ?? m.path) })),
        direct: posted.filter((m) => !pagePorts.has(m.port) && m.type === 'call').map((m) => ({ name: String(m.name), live: m.live ?? null })),
        late,
      };
    };
  });
  return async (index: number): Promise<Sent> => (await previewFrame(page, index)).evaluate(() => (globalThis as unknown as { __sent: () => Sent }).__sent());
}

async function previewFrame(page: Page, index: number) {
  return (await (await page.locator('iframe.preview-frame').nth(index).elementHandle())!.contentFrame())!;
}

/** Loads a preview again (its toolbar's Reload) while its calls were not counted from its start (`Sent.late`), waiting each time for the new document. */
async function countedFromTheStart(page: Page, sentBy: (index: number) => Promise<Sent>, index: number, persona: string) {
  for (let attempt = 1; (await sentBy(index)).late; attempt++) {
    if (attempt > 3) throw new Error(`The ${persona} preview's calls were not counted from its start in ${attempt - 1} loads.`);
    await (await previewFrame(page, index)).evaluate(() => Object.assign(globalThis, { __replaced: true }));
    await page.getByRole('button', { name: `Reload the preview as ${persona}` }).click();
    await expect.poll(async () => (await previewFrame(page, index)).evaluate(() => !('__replaced' in globalThis) && '__sent' in globalThis).catch(() => false)).toBe(true);
    await expect(preview(page, index).getByLabel('New card')).toBeVisible();
  }
}

test("the template's queries and mutations go straight to the runtime worker, under each preview's live connection: nothing is relayed by the page, and live updates reach the other persona", async ({ page }) => {
  const sentBy = await countCalls(page);
  await openTemplate(page, 'team-board');
  await split(page);
  await countedFromTheStart(page, sentBy, 0, 'alice');
  await countedFromTheStart(page, sentBy, 1, 'bob');
  await expect(calls(page, 'alice live connection → 200')).not.toHaveCount(0);
  await expect(calls(page, 'bob live connection → 200')).not.toHaveCount(0);
  // Bob's cards query has run under his live connection, over his port (the runtime holds it there).
  await expect.poll(async () => (await sentBy(1)).direct.some((call) => call.name === 'cards.list' && call.live !== null)).toBe(true);
  const before = [await sentBy(0), await sentBy(1)];

  await addCard(page, 0, 'Over the port');
  await expect(preview(page, 0).getByText('Over the port')).toBeVisible();
  await expect(preview(page, 1).getByText('Over the port')).toBeVisible();
  // And back: bob's write reaches alice.
  await addCard(page, 1, 'From bob, over his port');
  await expect(preview(page, 0).getByText('From bob, over his port')).toBeVisible();

  const [alice, bob] = [await sentBy(0), await sentBy(1)];
  const since = (now: Sent, then: Sent) => ({ relayed: now.relayed.slice(then.relayed.length), direct: now.direct.slice(then.direct.length) });
  const aliceSince = since(alice, before[0]!);
  const bobSince = since(bob, before[1]!);
  // The page relayed none of their calls; each mutation and each re-run went on the direct port, under the live connection.
  expect(aliceSince.relayed).toEqual([]);
  expect(bobSince.relayed).toEqual([]);
  expect(aliceSince.direct.map((call) => call.name)).toEqual(expect.arrayContaining(['cards.add', 'cards.list']));
  expect(bobSince.direct.map((call) => call.name)).toEqual(expect.arrayContaining(['cards.add', 'cards.list']));
  for (const call of [...aliceSince.direct, ...bobSince.direct]) expect(call.live).not.toBeNull();
});

test('with liveConnections 0 there is no stream: the other preview refreshes only when it mutates itself', async ({ page }, testInfo) => {
  await openTemplate(page, 'team-board');
  await afterRebuild(page, () => replaceFile(page, 'app.manifest.json', (text) => text.replace('"liveConnections": 20', '"liveConnections": 0')));
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 30_000 });
  await split(page);
  // Both previews asked for a connection and were refused: the budget is 0. That is said once, as
  // information, not logged as a failed call per preview load (e2e/seeing.spec.ts).
  await expect(page.locator('.events li[data-kind="preview.live"]')).toHaveCount(1);
  await expect(page.locator('.events li[data-kind="preview.live"]')).toContainText('liveConnections is 0');
  await expect(calls(page, 'live connection → 503')).toHaveCount(0);
  await expect(calls(page, 'bob query cards.list')).not.toHaveCount(0);

  await addCard(page, 0, 'Only alice sees this yet');
  await expect(preview(page, 0).getByText('Only alice sees this yet')).toBeVisible();
  // Alice's write is committed and shown to her; nothing can carry it to bob's preview.
  await expect(preview(page, 1).getByText('Only alice sees this yet')).toHaveCount(0);

  // Bob's own mutation re-runs his cards query: now he sees both cards.
  await addCard(page, 1, "Bob's own card");
  await expect(preview(page, 1).getByText("Bob's own card")).toBeVisible();
  await expect(preview(page, 1).getByText('Only alice sees this yet')).toBeVisible();
  // And alice, without a stream either, does not see bob's card until she writes.
  await expect(preview(page, 0).getByText("Bob's own card")).toHaveCount(0);
  await testInfo.attach('no stream', { body: await page.screenshot(), contentType: 'image/png' });
});
