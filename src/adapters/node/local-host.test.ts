/**
 * The Node local host at a stop signal (real processes): a terminal's Ctrl-C signals the whole process
 * group, so esbuild's service process dies with ours. esbuild's Node API, written to after its service
 * died while an answer the service sent before is still unread, throws out of its pipe reader ("callback
 * is not a function"), which made `platform dev` end in DG0000 instead of stopping (a CI run's failure).
 */
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { collect, ROOT } from '../../testing/cli';

/**
 * A process that uses esbuild as `platform dev` does and is signalled as a terminal signals its group:
 * its own SIGINT first, then esbuild's service, which has answered a request this process has not read
 * yet. What the process does on the stop (as dev disposes its bundler) writes to the dead service.
 */
const SCRIPT = `
import { register } from 'tsx/esm/api';
register();
import { readdirSync, readFileSync } from 'node:fs';
// As the CLI runs: an uncaught error is DG0000 on stderr and exit status 1 (bin/crash.mjs).
const { installCrashHandler } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'bin/crash.mjs')).href)});
installCrashHandler(['dev', '--json']);
const esbuild = await import('esbuild');
const { nodeLocalHost } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/adapters/node/local-host.ts')).href)});
const host = nodeLocalHost(process.cwd());
host.bundler({ esbuild, library: { files: new Map() } });
const context = await esbuild.context({ stdin: { contents: 'export const a = 1' }, write: false });
await context.rebuild();
const service = Number(readdirSync('/proc').filter((entry) => /^\\d+$/.test(entry)).find((entry) => {
  try {
    const stat = readFileSync('/proc/' + entry + '/stat', 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid && readFileSync('/proc/' + entry + '/cmdline', 'utf8').includes('--service=');
  } catch {
    return false;
  }
}));
if (!service) throw new Error('no esbuild service process');
const busy = (ms) => { const until = Date.now() + ms; while (Date.now() < until); };
void host.stopped().then(async (reason) => {
  // What dev does once stopped, while the group's signal ends esbuild: a request is answered, its answer
  // not read yet, when the bundler's context is disposed (a write to the dead service).
  const unread = esbuild.transform('let unread = 1').catch(() => undefined);
  busy(600);
  try {
    process.kill(service, 'SIGINT');
  } catch {
    // Ended already.
  }
  busy(300);
  await context.dispose();
  await unread;
  await new Promise((wake) => setTimeout(wake, 300));
  process.stdout.write(JSON.stringify({ reason }));
  process.exit(0);
});
process.kill(process.pid, 'SIGINT');
`;

it('Ctrl-C to the group: esbuild\'s late answer after its service died with the process is no crash', async () => {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const { code, stdout, stderr } = await collect(child).ended;
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  expect(JSON.parse(stdout)).toEqual({ reason: 'interrupted (Ctrl-C)' });
}, 60_000);
