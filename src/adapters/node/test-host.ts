/**
 * `platform test` in Node: each test file runs in a worker thread. A test that does not finish in time
 * is stopped by terminating its worker (the only way to stop `while (true) {}`), reported as DG1906,
 * and the file's remaining tests go on in a fresh worker.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { failEvent, type TestEvent } from '../../core/testing/events';
import type { PreparedTests } from '../../core/testing/prepare';
import { runFileToEnd, type Attempt } from '../../core/testing/restarts';
import { TEST_TIMEOUT_MS } from '../../core/testing/run-file';
import type { RunFileMessage, WorkerMessage } from './test-protocol';

const WORKER = new URL('./test-worker.mjs', import.meta.url);
/** Time the parent allows beyond the test's own limit before it stops the worker. */
const GRACE_MS = 1_000;

export interface NodeTestOptions {
  only?: string;
  timeoutMs?: number;
}

export async function* runTestsInNode(prepared: PreparedTests, options: NodeTestOptions = {}): AsyncGenerator<TestEvent> {
  if (!prepared.server || !prepared.manifest) return;
  const timeoutMs = options.timeoutMs ?? TEST_TIMEOUT_MS;
  const dir = mkdtempSync(join(tmpdir(), 'platform-test-'));
  try {
    const serverPath = join(dir, 'server', 'index.mjs');
    mkdirSync(dirname(serverPath), { recursive: true });
    writeFileSync(serverPath, prepared.server.code);
    for (const test of prepared.tests) {
      const testPath = join(dir, test.file.replace(/\.[^./]+$/, '.mjs'));
      mkdirSync(dirname(testPath), { recursive: true });
      writeFileSync(testPath, test.code);
      const testUrl = new URL(`file://${testPath}`).href;
      yield* runFileToEnd(test, timeoutMs, (skip) =>
        runWorker({ type: 'run', file: test.file, manifest: prepared.manifest!, serverPath, testPath, testMap: test.map, skip, only: options.only, timeoutMs }, timeoutMs + GRACE_MS, testUrl),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs one worker to its end, yielding its events; tells which test it was stopped in, if it was. */
async function* runWorker(message: RunFileMessage, limitMs: number, testUrl: string): AsyncGenerator<TestEvent, Attempt> {
  const worker = new Worker(WORKER);
  const queue: Array<WorkerMessage | { type: 'stopped' } | { type: 'crashed'; error: string }> = [];
  let wake: (() => void) | undefined;
  const push = (item: (typeof queue)[number]) => {
    queue.push(item);
    wake?.();
  };
  let current: { name: string; location?: string; moduleUrl: string } | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  worker.on('message', (m: WorkerMessage) => push(m));
  worker.on('error', (error) => push({ type: 'crashed', error: error.message }));
  worker.on('exit', () => push({ type: 'stopped' }));
  worker.postMessage(message);
  const ran: string[] = [];
  try {
    for (;;) {
      if (!queue.length) await new Promise<void>((resolve) => (wake = resolve));
      const item = queue.shift()!;
      if (item.type === 'start') {
        current = { name: item.name, moduleUrl: testUrl, ...(item.location ? { location: item.location } : {}) };
        clearTimeout(timer);
        timer = setTimeout(() => void worker.terminate(), limitMs);
      } else if (item.type === 'event') {
        if (item.event.kind === 'test.case.pass' || item.event.kind === 'test.case.fail') {
          ran.push(item.event.name);
          current = undefined;
          clearTimeout(timer);
        }
        yield item.event;
      } else if (item.type === 'done') {
        return { ran };
      } else if (item.type === 'crashed') {
        yield failEvent(current?.name ?? '(the test worker)', 0, { code: 'DG1902', severity: 'error', message: `The test runtime failed: ${item.error}`, file: message.file });
        return { ran: current ? [...ran, current.name] : ran };
      } else {
        return current ? { ran, stopped: current } : { ran };
      }
    }
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}
