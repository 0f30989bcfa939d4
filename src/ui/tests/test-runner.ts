/// <reference path="../../../worker/virtual-runtime-sandbox.d.ts" />
/**
 * The playground's `platform test`: each test file runs in its own sandbox (src/ui/runtime/sandbox-frame.ts,
 * the same opaque-origin iframe and blob worker as the app's runtime), never the preview's: each test
 * gets a fresh empty database there, and the preview's data is never touched.
 *
 * As in `platform test` (src/adapters/workerd/test-host.ts), a test that does not finish in time is stopped by
 * removing its sandbox (the only way to stop `while (true) {}`), reported as DG1906, and the file's
 * remaining tests go on in a fresh sandbox. A sandbox whose worker fails reports DG1902.
 */
import sandboxCode from 'virtual:runtime-sandbox';
import type { Manifest } from '../../core/manifest';
import { diagnostic } from '../../core/diagnostics';
import { failEvent, type TestEvent } from '../../core/testing/events';
import { runFileToEnd, type Attempt } from '../../core/testing/restarts';
import { TEST_TIMEOUT_MS } from '../../core/testing/run-file';
import { isRuntimeMessage, type RuntimeMessage, type RuntimeRequest } from '../../../worker/protocol/runtime';
import type { TestBundle } from '../compiler-client';
import { sqlWasm } from '../runtime/runtime-host';
import { SandboxFrame } from '../runtime/sandbox-frame';

/** Time allowed beyond a test's own limit before its sandbox is removed. */
const GRACE_MS = 1_000;

export interface PreparedRun {
  manifest: Manifest;
  serverCode: string;
  tests: TestBundle[];
}

export interface SandboxTestOptions {
  /** Only this test of this file. */
  only?: { file: string; name: string };
  /** Only this file. */
  file?: string;
  timeoutMs?: number;
  /** Where the hidden sandboxes go; document.body by default. */
  container?: HTMLElement;
  /** Stops the run: the running sandbox is removed and nothing more runs. */
  signal?: AbortSignal;
  /** Called as each test starts. */
  onStart?(file: string, name: string): void;
}

type Item = { type: 'message'; message: RuntimeMessage } | { type: 'stopped' } | { type: 'crashed'; message: string } | { type: 'aborted' };

/** A pass or fail event, with the test file it came from (a failure's `file` may be a helper it imports). */
export interface FileTestEvent {
  testFile: string;
  event: TestEvent;
}

/** Runs the tests, yielding a pass or fail event per test (no `test.run.finish`: the caller counts). */
export async function* runTestsInSandbox(prepared: PreparedRun, options: SandboxTestOptions = {}): AsyncGenerator<FileTestEvent> {
  const timeoutMs = options.timeoutMs ?? TEST_TIMEOUT_MS;
  const files = prepared.tests.filter((t) => (options.only ? t.file === options.only.file : options.file === undefined || t.file === options.file));
  for (const test of files) {
    const events = runFileToEnd(test, timeoutMs, (skip) => runSandbox(prepared, test, skip, timeoutMs, options), () => options.signal?.aborted === true);
    for await (const event of events) yield { testFile: test.file, event };
  }
}

/** One sandbox running (the rest of) one file; tells which test it was stopped in, if it was. */
async function* runSandbox(
  prepared: PreparedRun,
  test: TestBundle,
  skip: string[],
  timeoutMs: number,
  options: SandboxTestOptions,
): AsyncGenerator<TestEvent, Attempt> {
  const queue: Item[] = [];
  let wake: (() => void) | undefined;
  const push = (item: Item) => {
    queue.push(item);
    wake?.();
  };
  const frame = new SandboxFrame({
    container: options.container ?? document.body,
    code: sandboxCode,
    onMessage: (data) => {
      if (isRuntimeMessage(data)) push({ type: 'message', message: data });
      else push({ type: 'crashed', message: 'The test sandbox sent a malformed message.' });
    },
    onWorkerError: (message) => push({ type: 'crashed', message }),
  });
  const abort = () => push({ type: 'aborted' });
  options.signal?.addEventListener('abort', abort);
  let current: { name: string; location?: string; moduleUrl: string } | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => push({ type: 'stopped' }), timeoutMs + GRACE_MS);
  };
  const ran: string[] = [];
  try {
    const [wasm] = await Promise.all([sqlWasm(), frame.booted]);
    const request: RuntimeRequest = {
      type: 'run-tests',
      id: 1,
      wasm: wasm.slice(0),
      manifest: prepared.manifest,
      serverCode: prepared.serverCode,
      file: test.file,
      code: test.code,
      map: test.map,
      ...(options.only ? { only: options.only.name } : {}),
      skip,
      timeoutMs,
    };
    frame.post(request);
    // Loading the file (its top level) gets the same limit as a test.
    watch();
    for (;;) {
      if (!queue.length) await new Promise<void>((resolve) => (wake = resolve));
      const item = queue.shift()!;
      if (item.type === 'aborted') return { ran };
      if (item.type === 'crashed') {
        yield failEvent(current?.name ?? '(the test runtime)', 0, { ...diagnostic('DG1902', `The test runtime failed: ${item.message}`, { file: test.file }), kind: 'error' });
        return { ran: current ? [...ran, current.name] : ran };
      }
      if (item.type === 'stopped') {
        if (current) return { ran, stopped: current };
        yield failEvent('(loading the file)', timeoutMs, { ...diagnostic('DG1903', `${test.file} did not finish loading within ${timeoutMs / 1000} seconds and was stopped.`, { file: test.file, hint: 'Look for a loop at the top level of the file.' }), kind: 'load' });
        return { ran };
      }
      const message = item.message;
      if (message.type === 'test-start') {
        current = { name: message.name, moduleUrl: message.moduleUrl, ...(message.location ? { location: message.location } : {}) };
        options.onStart?.(test.file, message.name);
        watch();
      } else if (message.type === 'test-event') {
        if (message.event.kind !== 'test.run.finish') ran.push(message.event.name);
        current = undefined;
        watch();
        yield message.event;
      } else if (message.type === 'tests-done') {
        return { ran };
      }
      // Anything else (a fault from a forgotten timer) does not change the run.
    }
  } catch (error) {
    yield failEvent('(the test runtime)', 0, { ...diagnostic('DG1902', `The test runtime failed to start: ${error instanceof Error ? error.message : String(error)}`, { file: test.file }), kind: 'error' });
    return { ran };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abort);
    frame.dispose();
  }
}
