// `npm start`: the playground (Vite on 5173, PLATFORM_PLAYGROUND_PORT) and the control plane (on 4310,
// PLATFORM_CONTROL_PORT) side by side; the control plane allows exactly the playground's origins, and
// the playground is told where the control plane is (VITE_PLATFORM_CONTROL_URL: its public origin, or
// localhost on its port), which its Deploy panel proposes. The playground's port is strict: taken, it
// fails rather than move where the control plane refuses it. Stopping either, or this script, stops both.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
const controlPort = process.env.PLATFORM_CONTROL_PORT ?? '4310';
const dataDir = process.env.PLATFORM_CONTROL_DATA ?? '.platform/control-plane';
const playgroundPort = process.env.PLATFORM_PLAYGROUND_PORT ?? '5173';
const playgroundOrigins = [`http://localhost:${playgroundPort}`, `http://127.0.0.1:${playgroundPort}`];
// Where the control plane says it is reached (src/control-plane/main.ts reads PLATFORM_PUBLIC_ORIGIN too).
const controlUrl = process.env.PLATFORM_PUBLIC_ORIGIN || `http://localhost:${controlPort}`;

const children = [
  spawn(bin('vite'), ['--port', playgroundPort, '--strictPort', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit', env: { ...process.env, VITE_PLATFORM_CONTROL_URL: controlUrl } }),
  spawn(bin('tsx'), ['src/control-plane/main.ts', '--port', controlPort, '--data', dataDir, '--playground-origin', playgroundOrigins.join(',')], { cwd: root, stdio: 'inherit' }),
];

let stopping = false;
function stop(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  // Whatever does not stop within five seconds is ended.
  const timer = setTimeout(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }, 5000);
  timer.unref();
  Promise.all(children.map((child) => (child.exitCode !== null || child.signalCode !== null ? undefined : new Promise((done) => child.once('exit', done))))).then(() => process.exit(code));
}

for (const child of children) {
  child.once('exit', (code) => stop(code ?? 1));
  child.once('error', (error) => {
    console.error(error.message);
    stop(1);
  });
}
process.once('SIGINT', () => stop(0));
process.once('SIGTERM', () => stop(0));
