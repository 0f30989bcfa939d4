#!/usr/bin/env node
// The `platform` command. Runs the TypeScript sources directly through tsx, so a checkout works
// right after `npm install` with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
