#!/usr/bin/env node
// `npm test`: type-check, unit tests (Vitest), end-to-end tests (Playwright in Chromium), then one
// closing line `N passed, N failed` over both suites. Exits non-zero when any step fails.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';

const reports = 'reports';
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

function step(title, command, args, env = {}) {
  console.log(`\n━━ ${title} ━━`);
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status ?? 1;
}

function read(path) {
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined;
}

const failures = [];
if (step('type check', 'npm', ['run', '-s', 'typecheck']) !== 0) failures.push('type check');
if (step('unit tests', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${reports}/unit.json`]) !== 0) failures.push('unit tests');
if (step('end-to-end tests', 'npx', ['playwright', 'test']) !== 0) failures.push('end-to-end tests');

const unit = read(`${reports}/unit.json`);
const e2e = read(`${reports}/e2e.json`);
const passed = (unit?.numPassedTests ?? 0) + (e2e?.stats?.expected ?? 0);
const failed = (unit?.numFailedTests ?? 0) + (e2e?.stats?.unexpected ?? 0) + (e2e?.stats?.flaky ?? 0);
// The names of what failed, last, so that the tail of a long log says which tests to look at.
const failedNames = [];
const firstLines = (text) => String(text ?? '').replace(/\x1b\[[0-9;]*m/g, '').split('\n').filter((line) => line.trim()).slice(0, 3).join('\n      ');
for (const file of unit?.testResults ?? []) {
  for (const test of file.assertionResults ?? []) {
    if (test.status === 'failed') failedNames.push(`unit ${file.name.replace(process.cwd() + '/', '')} › ${test.fullName}\n      ${firstLines(test.failureMessages?.[0])}`);
  }
  if (file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed')) failedNames.push(`unit ${file.name.replace(process.cwd() + '/', '')}: ${firstLines(file.message)}`);
}
function e2eFailures(suite, titles) {
  for (const child of suite.suites ?? []) e2eFailures(child, [...titles, child.title]);
  for (const spec of suite.specs ?? []) {
    for (const test of spec.tests ?? []) {
      if (test.status === 'unexpected' || test.status === 'flaky') {
        const error = test.results?.find((result) => result.error)?.error?.message ?? '';
        failedNames.push(`e2e ${spec.file}:${spec.line} › ${spec.title} (${test.status})\n      ${firstLines(error)}`);
      }
    }
  }
}
for (const suite of e2e?.suites ?? []) e2eFailures(suite, [suite.title]);
if (failedNames.length) console.log(`\nfailed tests:\n${failedNames.map((name) => `  - ${name}`).join('\n')}`);
console.log(`\nunit: ${unit?.numPassedTests ?? 0} passed, ${unit?.numFailedTests ?? 0} failed; e2e: ${e2e?.stats?.expected ?? 0} passed, ${e2e?.stats?.unexpected ?? 0} failed`);
if (failures.length) console.log(`failed steps: ${failures.join(', ')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failures.length || failed ? 1 : 0);
