#!/usr/bin/env node
// The `platform` command. Runs the prebuilt CLI (build/cli/, made by `npm install`'s prepare step,
// `npm run build:cli` and the test setups; see scripts/build-cli.ts) while none of the sources it was
// built from has changed since. Otherwise, or with PLATFORM_CLI_SOURCES=1, it runs the TypeScript
// sources through tsx: slower to start, never stale.
import { prebuiltEntry } from './prebuilt.mjs';

const root = new URL('../', import.meta.url);
let entry = process.env.PLATFORM_CLI_SOURCES === '1' ? undefined : prebuiltEntry(root);
if (!entry) {
  const { register } = await import('tsx/esm/api');
  register();
  entry = new URL('src/cli/main.ts', root);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
