/** Runs a project's package script with npm (`npm run <script>`), its output captured (the last 64 KiB). */
import { spawn } from 'node:child_process';

const OUTPUT_LIMIT = 64 * 1024;

export function runPackageScript(directory: string, script: string): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
    };
    // npm is a .cmd on Windows, which only a shell runs; the script name is passed as one argument.
    const child = spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', script], { cwd: directory, shell: process.platform === 'win32', stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => done({ code: 127, output: `${output}${error.message}` }));
    child.on('close', (code) => done({ code: code ?? 1, output }));
  });
}
