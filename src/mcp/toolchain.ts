/** The toolchain checks of `platform doctor` that need Node: the Node version, the workerd binary, esbuild. */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ToolchainCheck } from '../core/commands';

const require = createRequire(import.meta.url);

function atLeast(version: string, minimum: string): boolean {
  const a = version.replace(/^v/, '').split('.').map(Number);
  const b = minimum.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

function run(file: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  return new Promise((done) => execFile(file, args, { timeout: 30_000 }, (error, stdout, stderr) => done({ ok: !error, out: `${stdout}${stderr}`.trim() || String(error?.message ?? '') })));
}

export async function toolchainChecks(): Promise<ToolchainCheck[]> {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines?: { node?: string } };
  const minimum = pkg.engines?.node?.replace(/^>=\s*/, '') ?? '20.19';
  const checks: ToolchainCheck[] = [{
    name: 'node',
    ok: atLeast(process.version, minimum),
    detail: atLeast(process.version, minimum) ? `Node ${process.version} (needs ${minimum} or later).` : `Node ${process.version} is older than ${minimum}: install Node ${minimum} or later.`,
  }];
  try {
    const bin = (require('workerd') as { default?: string }).default ?? String(require('workerd'));
    const version = await run(bin, ['--version']);
    checks.push({ name: 'workerd', ok: version.ok, detail: version.ok ? `${version.out} at ${bin}.` : `workerd at ${bin} does not run (${version.out}): reinstall with npm install.` });
  } catch (error) {
    checks.push({ name: 'workerd', ok: false, detail: `The workerd package is not installed (${(error as Error).message}): run npm install.` });
  }
  try {
    const esbuild = (await import('esbuild')) as { version: string; transform(code: string, options: { loader: 'ts' }): Promise<{ code: string }> };
    await esbuild.transform('let x: number = 1', { loader: 'ts' });
    checks.push({ name: 'esbuild', ok: true, detail: `esbuild ${esbuild.version} runs.` });
  } catch (error) {
    checks.push({ name: 'esbuild', ok: false, detail: `esbuild does not run (${(error as Error).message}): reinstall with npm install.` });
  }
  return checks;
}
