/**
 * Vitest's configuration: two projects over the same test files. `integration` holds the tests that
 * start processes or servers (the CLI, workerd, a control plane, Chromium, Vite, a loopback server),
 * `unit` the rest. `npx vitest run` runs both; `npx vitest run --project unit` the quick ones alone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

const ROOT = import.meta.dirname;
const FOLDERS = ['src', 'bench', 'vite', 'scripts'];

/**
 * The rule: a test file is an integration test when it imports (other than `import type`) one of
 * these, each a way to start a process or a server. Bare specifiers are matched as written, the
 * file's relative imports by the checkout path they name (without `.ts`).
 */
const STARTS_PROCESSES: RegExp[] = [
  /^node:(child_process|http|https|net)$/,
  /^@hono\/node-server/,
  /^playwright/,
  /^vite$/,
  // The CLI (run as a process, or in this process: test, dev and preview start workerd engines).
  /^src\/testing\/cli$/,
  /^src\/cli\/main$/,
  /^src\/testing\/(dev-process|mcp-client)$/,
  // A PostgreSQL server (the records' shared engine).
  /^src\/testing\/postgres$/,
  // A control plane (in process it hosts deployed apps in workerd), and the helpers that start one.
  /^src\/control-plane\/(control-plane|main)$/,
  /^src\/testing\/control-plane$/,
  /^src\/adapters\/workerd\//,
];

function testFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name.startsWith('.') ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

function startsProcesses(file: string): boolean {
  const source = readFileSync(join(ROOT, file), 'utf8');
  for (const [, specifier] of source.matchAll(/^import (?!type )[^;]*?from '([^']+)';/gms)) {
    const target = specifier!.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), specifier!)).replace(/\.ts$/, '') : specifier!;
    if (STARTS_PROCESSES.some((pattern) => pattern.test(target))) return true;
  }
  return false;
}

const all = FOLDERS.flatMap(testFiles);
const integration = all.filter(startsProcesses);

export default defineConfig({
  test: {
    environment: 'node',
    // Both cores: Vitest's default in a run is one worker fewer than the cores (one here), which left the
    // second core idle while a test waited on a process it spawned. Under two workers a TypeScript-heavy
    // test can take twice as long, so none is given less than 2 minutes (speed is measured in the bench).
    maxWorkers: 2,
    // No check servers (bin/check-server.mjs) left behind by the CLIs tests start: the server's own tests allow one each, in a folder of their own.
    env: { PLATFORM_CHECK_SERVER: '0' },
    testTimeout: 120_000,
    // Setup hooks too (a beforeEach that compiles a project took over the default 10 s on a loaded machine).
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: all.filter((file) => !integration.includes(file)) } },
      // The CLI that these tests spawn (bin/platform.mjs) is prebuilt from the current sources first.
      { extends: true, test: { name: 'integration', include: integration, globalSetup: ['scripts/build-cli.ts'] } },
    ],
  },
});
