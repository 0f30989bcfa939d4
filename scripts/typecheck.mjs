#!/usr/bin/env node
// `npm run typecheck`: each TypeScript project of the checkout (tsconfig.<name>.json) checked by tsc, and
// the import rules (scripts/check-cycles.ts), as many at once as the machine has cores. Run one after
// another they took 44 s on 2 cores (2026-12-03: node 13.8 s, web 9.0, worker 6.9, core 6.2, modules 3.9,
// the import rules 3.9); the longest start first. Each step's output is printed whole when it ends, under
// its name, so that two steps never interleave; the exit status is 1 when any step failed.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
const tsx = fileURLToPath(new URL('../node_modules/tsx/dist/cli.mjs', import.meta.url));

/** Longest first (the times above), so that the last to start are the short ones. */
const STEPS = [
  ...['node', 'web', 'worker', 'core', 'modules'].map((name) => ({ title: `tsc -p tsconfig.${name}.json`, args: [tsc, '-p', `tsconfig.${name}.json`] })),
  { title: 'import rules (scripts/check-cycles.ts)', args: [tsx, 'scripts/check-cycles.ts'] },
];

function run({ title, args }) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code, signal) => {
      const ok = code === 0;
      const text = Buffer.concat(output).toString();
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${title} (${seconds} s)${signal ? ` killed by ${signal}` : ''}\n${text}${text && !text.endsWith('\n') ? '\n' : ''}`);
      resolve(ok);
    });
  });
}

const queue = [...STEPS];
let failed = 0;
const lanes = Array.from({ length: Math.max(1, Math.min(availableParallelism(), STEPS.length)) }, async () => {
  for (let step = queue.shift(); step; step = queue.shift()) if (!(await run(step))) failed++;
});
await Promise.all(lanes);
process.exit(failed ? 1 : 0);
