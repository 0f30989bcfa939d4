#!/usr/bin/env node
// The `platform` command. Runs the prebuilt CLI (build/cli/, made by `npm install`'s prepare step,
// `npm run build:cli` and the test setups; see scripts/build-cli.ts) while none of the sources it was
// built from has changed since. Otherwise, or with PLATFORM_CLI_SOURCES=1, it runs the TypeScript
// sources through tsx: slower to start, never stale.
import { readFileSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);

/** The prebuilt entry, or undefined when it is missing or older than one of its inputs. */
function prebuilt() {
  if (process.env.PLATFORM_CLI_SOURCES === '1') return undefined;
  try {
    const { builtAt, inputs } = JSON.parse(readFileSync(new URL('build/cli/inputs.json', root), 'utf8'));
    for (const input of inputs) if (statSync(new URL(input, root)).mtimeMs > builtAt) return undefined;
    return new URL('build/cli/main.js', root);
  } catch {
    return undefined;
  }
}

let entry = prebuilt();
if (!entry) {
  const { register } = await import('tsx/esm/api');
  register();
  entry = new URL('src/cli/main.ts', root);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
