/**
 * The gallery says what each template teaches, and each template's preview is styled (its own
 * stylesheet, bundled with its client). Screenshots of each are attached to the report; with
 * SCREENSHOT_DIR set they are also written there (docs/images is where the docs take them from).
 */
import { expect, test, type Page, type TestInfo } from './profile';
import { openTemplate, preview } from './helpers';

type Frame = ReturnType<typeof preview>;

/** Each template with some data put in through its own UI, so the screenshot shows it in use. */
test.use({ viewport: { width: 1280, height: 860 } });

const TEMPLATES: { id: string; heading: string; use(app: Frame): Promise<void> }[] = [
  {
    id: 'todo',
    heading: 'Todos',
    async use(app) {
      await app.getByLabel('New todo').fill('Water the plants');
      await app.getByRole('button', { name: 'Add' }).click();
      await expect(app.getByText('Water the plants')).toBeVisible();
    },
  },
  {
    id: 'files',
    heading: 'Files',
    async use(app) {
      await app.locator('input[type=file]').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello from the templates spec\n') });
      await expect(app.getByRole('link', { name: 'notes.txt' })).toBeVisible();
    },
  },
  {
    id: 'team-board',
    heading: 'Team board',
    async use(app) {
      await app.getByLabel('New card').fill('Write the release notes');
      await app.getByRole('button', { name: 'Add', exact: true }).click();
      await expect(app.getByText('Write the release notes')).toBeVisible();
    },
  },
  {
    id: 'endpoints',
    heading: 'Endpoints and streams',
    async use(app) {
      await app.getByRole('button', { name: 'GET /api/greet/:name' }).click();
      await expect(app.getByText('Hello, Ada!')).toBeVisible();
      await app.getByRole('button', { name: 'Stream GET /api/count/20' }).click();
      await expect(app.locator('pre')).toContainText('20');
    },
  },
];

async function shoot(page: Page, testInfo: TestInfo, name: string, target?: { locator: ReturnType<Page['locator']> }) {
  const body = target ? await target.locator.screenshot() : await page.screenshot();
  await testInfo.attach(name, { body, contentType: 'image/png' });
  const dir = process.env.SCREENSHOT_DIR;
  if (dir) {
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(dir, { recursive: true });
    await writeFile(`${dir}/${name}.png`, body);
  }
}

test('the gallery shows what each template teaches', async ({ page }, testInfo) => {
  await page.goto('/');
  for (const { id } of TEMPLATES) {
    const teaches = page.locator(`[data-template="${id}"] .template-teaches`);
    await expect(teaches).toHaveText(/^Teaches: .{20,}/);
  }
  await shoot(page, testInfo, 'gallery');
});

for (const { id, heading, use } of TEMPLATES) {
  test(`the ${id} template's preview is styled`, async ({ page }, testInfo) => {
    await openTemplate(page, id);
    await expect(preview(page).getByRole('heading', { name: heading, level: 1 })).toBeVisible();
    // Its stylesheet applies: a system font, and the app laid out as a card on a tinted page.
    const styles = await preview(page)
      .locator('main')
      .evaluate((main) => {
        const body = getComputedStyle(document.body);
        const card = getComputedStyle(main);
        return { font: body.fontFamily, page: body.backgroundColor, card: card.backgroundColor, radius: card.borderTopLeftRadius, width: card.maxWidth };
      });
    expect(styles.font).toContain('system-ui');
    expect(styles.page).not.toBe('rgba(0, 0, 0, 0)');
    expect(styles.card).toBe('rgb(255, 255, 255)');
    expect(styles.radius).not.toBe('0px');
    expect(styles.width).not.toBe('none');
    await use(preview(page));
    await shoot(page, testInfo, `template-${id}`, { locator: page.locator('.preview').first() });
  });
}
