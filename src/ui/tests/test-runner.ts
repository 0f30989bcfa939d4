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
import type { Span } from '../../core/diagnostics';
import type { Manifest } from '../../core/manifest';
import { describeError, Inbox, followAttempt, type AttemptInbox } from '../../core/host';
import type { LogLine } from '../../core/runtime';
import { type TestEvent, runFileToEnd, type Attempt, TEST_TIMEOUT_MS } from '../../core/testing';
import { isRuntimeMessage, type RuntimeRequest } from '../../../worker/protocol/runtime';
import type { TestBundle } from '../compiler-client';
import { sqlWasm } from '../runtime/runtime-host';
import { SandboxFrame } from '../runtime/sandbox-frame';

/** Time allowed beyond a test's own limit before its sandbox is removed. */
const GRACE_MS = 1_000;

export interface PreparedRun {
  manifest: Manifest;
  serverCode: string;
  /** The server bundle's source map, when the compile gave it. */
  serverMap?: string;
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
  /** A line a test file wrote with `console` while loading (`test` is `(loading the file)`) or in a test, its handlers' included; where in the test file, if there. */
  onLog?(file: string, test: string, line: LogLine, location?: { file: string; span: Span }): void;
}

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

/** One sandbox running (the rest of) one file; the kernel's attempt (src/core/host/test-run.ts) times its tests. */
async function* runSandbox(
  prepared: PreparedRun,
  test: TestBundle,
  skip: string[],
  timeoutMs: number,
  options: SandboxTestOptions,
): AsyncGenerator<TestEvent, Attempt> {
  const inbox: AttemptInbox = new Inbox();
  const frame = new SandboxFrame({
    container: options.container ?? document.body,
    code: sandboxCode,
    onMessage: (data) => {
      if (!isRuntimeMessage(data)) inbox.push({ type: 'crashed', message: 'The test sandbox sent a malformed message.' });
      else if (data.type === 'test') inbox.push(data.message);
      // Anything else (a fault from a forgotten timer) does not change the run.
    },
    onWorkerError: (message) => inbox.push({ type: 'crashed', message }),
  });
  const cancel = () => inbox.push({ type: 'cancelled' });
  options.signal?.addEventListener('abort', cancel);
  try {
    const [wasm] = await Promise.all([sqlWasm(), frame.booted]).catch((error: unknown) => {
      inbox.push({ type: 'failed', error: `its sandbox could not start (${describeError(error)})` });
      return [undefined];
    });
    if (wasm) {
      const request: RuntimeRequest = {
        type: 'run-tests',
        id: 1,
        wasm: wasm.slice(0),
        manifest: prepared.manifest,
        serverCode: prepared.serverCode,
        ...(prepared.serverMap !== undefined ? { serverMap: prepared.serverMap } : {}),
        file: test.file,
        code: test.code,
        map: test.map,
        ...(options.only ? { only: options.only.name } : {}),
        skip,
        timeoutMs,
      };
      frame.post(request);
    }
    return yield* followAttempt(inbox, {
      file: test.file,
      timeoutMs,
      graceMs: GRACE_MS,
      onStart: (message) => options.onStart?.(test.file, message.name),
      onLog: (name, line, location) => options.onLog?.(test.file, name, line, location),
    });
  } finally {
    options.signal?.removeEventListener('abort', cancel);
    frame.dispose();
  }
}
