import { defineConfig, devices } from '@playwright/test';

// Playwright drives the system's Chromium (Debian's package); it cannot download browsers here.
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const port = Number(process.env.E2E_PORT ?? 4173);

export default defineConfig({
  testDir: 'e2e',
  // The CLI that tests spawn (bin/platform.mjs) is prebuilt from the current sources first.
  globalSetup: './scripts/build-cli.ts',
  // A test opens a template and builds it more than once; on 2 cores running 2 workers one build can
  // take 10 s or more, so no test is given less than 2 minutes (specs that need longer say so).
  timeout: 120_000,
  fullyParallel: true,
  workers: process.env.CI ? 2 : undefined,
  forbidOnly: !!process.env.CI,
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }], ['json', { outputFile: 'reports/e2e.json' }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    // A trace records every test (screenshots and DOM snapshots) to keep the failing ones: a fifth of the
    // suite's time on 2 cores (two specs, 169-178 s with it and 134-159 s without, 2026-12-03). CI keeps only
    // what the run prints (scripts/test.mjs names each failure with its error), so it records none.
    trace: process.env.CI ? 'off' : 'retain-on-failure',
    launchOptions: { executablePath },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], launchOptions: { executablePath } } }],
  webServer: {
    // The real built playground, as users get it.
    command: `npx vite build && npx vite preview --host 127.0.0.1 --port ${port} --strictPort`,
    url: `http://127.0.0.1:${port}`,
    reuseExistingServer: !process.env.CI,
    timeout: 120_000,
  },
});
