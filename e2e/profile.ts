/**
 * The e2e tests' `test`: each Playwright worker keeps one browser profile on disk for all its tests, as
 * a person's browser does, instead of a fresh private context per test. Its HTTP cache keeps the
 * playground's immutable assets, and with esbuild's wasm the code Chromium compiled for it: a private
 * context's in-memory cache keeps no entry as large as the wasm, so every test and every reload in it
 * compiled it again. (A worker's script, the 9 MB compiler worker's, is compiled again at each start
 * either way: Chromium keeps no compiled code for it. docs/testing.md has the figures.)
 *
 * What a test sees is still its own: after each test, every page of the profile is closed and the storage
 * of every origin it reached is cleared (IndexedDB, localStorage, cookies, Cache Storage,
 * service workers, file systems), with the permissions it granted. The caches of compiled code and of
 * HTTP stay: that is the point. A test's `viewport` and `colorScheme` (`test.use`) are applied to its
 * pages. A test that wants a browser of its own (another person, a first visit) asks `browser` for a
 * new context, as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, test as base, type BrowserContext, type Page } from '@playwright/test';

// Everything else as Playwright has it (`expect`, `chromium`, the types); `test` is this file's.
export * from '@playwright/test';

/** What an earlier test may have left in an origin; the HTTP cache and the code cache are not among them. */
const STORAGE = 'cookies,indexeddb,local_storage,cache_storage,service_workers,file_systems,websql,shared_storage,storage_buckets';

interface Profile {
  context: BrowserContext;
  /** The origins a test's pages or workers asked for something, cleared after it. */
  origins: Set<string>;
  /** The page kept open between tests (about:blank), from which the profile is cleared. */
  keeper: Page;
  /** Each page's viewport and colour scheme being applied (the context fixture's `page` listener). */
  applied: WeakMap<Page, Promise<void>>;
}

async function clear(profile: Profile): Promise<void> {
  const { context, keeper, origins } = profile;
  for (const page of context.pages()) if (page !== keeper) await page.close().catch(() => undefined);
  const cdp = await context.newCDPSession(keeper);
  try {
    for (const origin of origins) await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: STORAGE });
  } finally {
    await cdp.detach().catch(() => undefined);
  }
  origins.clear();
  await context.clearCookies();
  await context.clearPermissions();
}

export const test = base.extend<{}, { profile: Profile }>({
  profile: [
    async ({}, use, workerInfo) => {
      const { baseURL, viewport, userAgent, deviceScaleFactor, isMobile, hasTouch, launchOptions } = workerInfo.project.use;
      const dir = mkdtempSync(join(tmpdir(), 'playground-e2e-profile-'));
      const context = await chromium.launchPersistentContext(dir, { ...launchOptions, baseURL, viewport, userAgent, deviceScaleFactor, isMobile, hasTouch });
      const origins = new Set<string>();
      context.on('request', (request) => {
        const url = new URL(request.url());
        if (url.protocol === 'http:' || url.protocol === 'https:') origins.add(url.origin);
      });
      const keeper = context.pages()[0] ?? (await context.newPage());
      try {
        await use({ context, origins, keeper, applied: new WeakMap() });
      } finally {
        await context.close().catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      }
    },
    { scope: 'worker' },
  ],
  context: async ({ profile, viewport, colorScheme }, use) => {
    const { context, applied } = profile;
    // Every page the test opens (its own, a second tab) gets its viewport and colour scheme, once.
    const onPage = (page: Page) =>
      void applied.set(
        page,
        (async () => {
          if (viewport) await page.setViewportSize(viewport).catch(() => undefined);
          if (colorScheme) await page.emulateMedia({ colorScheme }).catch(() => undefined);
        })(),
      );
    context.on('page', onPage);
    try {
      await use(context);
    } finally {
      context.off('page', onPage);
      await clear(profile);
    }
  },
  page: async ({ context, profile }, use) => {
    const page = await context.newPage();
    await profile.applied.get(page);
    await use(page);
  },
});
