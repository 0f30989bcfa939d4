import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'bench/**/*.test.ts'],
    environment: 'node',
    // The CLI that tests spawn (bin/platform.mjs) is prebuilt from the current sources first.
    globalSetup: ['scripts/build-cli.ts'],
    testTimeout: 30_000,
  },
});
