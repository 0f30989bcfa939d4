import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'bench/**/*.test.ts', 'vite/**/*.test.ts', 'scripts/**/*.test.ts'],
    environment: 'node',
    // The CLI that tests spawn (bin/platform.mjs) is prebuilt from the current sources first.
    globalSetup: ['scripts/build-cli.ts'],
    // Both cores: Vitest's default in a run is one worker fewer than the cores (one here), which left the
    // second core idle while a test waited on a process it spawned. Under two workers a TypeScript-heavy
    // test can take twice as long, so none is given less than 2 minutes (speed is measured in the bench).
    maxWorkers: 2,
    testTimeout: 120_000,
  },
});
