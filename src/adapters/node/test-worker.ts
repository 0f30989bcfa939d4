/** A test worker thread: runs one test file's tests with the core runner, reporting each to the parent. */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parentPort } from 'node:worker_threads';
import { AppRuntime } from '../../core/runtime/runtime';
import { loadModuleMap } from '../../core/testing/locate';
import { runTestFile } from '../../core/testing/run-file';
import { nodeSqlDriverFactory } from './sqljs';
import type { RunFileMessage, WorkerMessage } from './test-protocol';

const port = parentPort!;
const post = (message: WorkerMessage) => port.postMessage(message);
let loads = 0;

port.once('message', async (message: RunFileMessage) => {
  const factory = await nodeSqlDriverFactory();
  const testUrl = pathToFileURL(message.testPath).href;
  const run = runTestFile(
    {
      file: message.file,
      appName: message.manifest.name,
      module: loadModuleMap(testUrl, message.testMap),
      async importTests() {
        await import(testUrl);
      },
      async newRuntime() {
        // A fresh copy of the server module per test: no state survives from one test to the next.
        const server = (await import(`${pathToFileURL(message.serverPath).href}?load=${++loads}`)) as { default: unknown };
        return new AppRuntime({ manifest: message.manifest, definition: server.default, driver: factory() });
      },
      sessionId: () => randomBytes(12).toString('hex'),
      now: () => performance.now(),
    },
    { only: message.only, skip: new Set(message.skip), timeoutMs: message.timeoutMs, onStart: (name, location) => post({ type: 'start', name, location }) },
  );
  for await (const event of run) post({ type: 'event', event });
  post({ type: 'done' });
});
