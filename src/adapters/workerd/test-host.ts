/**
 * `platform test` in workerd: each test file runs in an engine of its own (src/adapters/workerd/
 * workerd-engine.ts, the launcher hosted apps use) with no Node, no network and a heap limit, so a test
 * file from a stranger cannot reach the builder's files, processes or network. A test that does not
 * finish in time is stopped by ending its engine (the only way to stop `while (true) {}`), reported as
 * DG1906, and the file's remaining tests go on in a fresh engine.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { failEvent, type TestEvent } from '../../core/testing/events';
import type { PreparedTests } from '../../core/testing/prepare';
import { runFileToEnd, type Attempt } from '../../core/testing/restarts';
import { TEST_TIMEOUT_MS } from '../../core/testing/run-file';
import { ACK_PATH, serverCopyName, type TestRunMessage, type TestRunRequest } from '../../../worker/protocol/workerd-test';
import { bundleWorkerEntry, endEnginesOnSignal, WorkerdEngine } from './workerd-engine';

/** Time allowed beyond a test's own limit before its engine is ended. */
const GRACE_MS = 1_000;
const HEAP_MB = 512;
const START_TIMEOUT_MS = 30_000;
/** Copies of the server module per engine: one per test, the count estimated from the bundle (an engine that runs out hands over to a fresh one). */
const MAX_COPIES = 200;

export interface WorkerdTestOptions {
  only?: string;
  timeoutMs?: number;
}

export async function* runTestsInWorkerd(prepared: PreparedTests, options: WorkerdTestOptions = {}): AsyncGenerator<TestEvent> {
  if (!prepared.server || !prepared.manifest) return;
  const manifest = prepared.manifest;
  const timeoutMs = options.timeoutMs ?? TEST_TIMEOUT_MS;
  const dir = mkdtempSync(join(tmpdir(), 'platform-test-'));
  const undo = endEnginesOnSignal(() => rmSync(dir, { recursive: true, force: true }));
  try {
    const entryPath = await bundleWorkerEntry('workerd-test', join(dir, 'entry'));
    const serverPath = join(dir, 'modules', 'app.js');
    mkdirSync(dirname(serverPath), { recursive: true });
    writeFileSync(serverPath, prepared.server.code);
    let engines = 0;
    for (const test of prepared.tests) {
      const testModule = test.file.replace(/\.[^./]+$/, '.js');
      const testPath = join(dir, 'modules', testModule);
      mkdirSync(dirname(testPath), { recursive: true });
      writeFileSync(testPath, test.code);
      const copies = Math.min(MAX_COPIES, Math.max(1, (test.code.match(/\btest\(/g) ?? []).length));
      const modules = [{ name: 'entry.js', path: entryPath }, { name: testModule, path: testPath }, ...Array.from({ length: copies }, (_, i) => ({ name: serverCopyName(i), path: serverPath }))];
      const request = (skip: string[]): TestRunRequest => ({ file: test.file, manifest, testModule, testMap: test.map, serverCopies: copies, skip, ...(options.only !== undefined ? { only: options.only } : {}) });
      yield* runFileToEnd(test, timeoutMs, async function* (skip) {
        // An engine that used every copy of the server module hands the remaining tests to a fresh one.
        const ran: string[] = [];
        for (;;) {
          const outcome = yield* runEngine(join(dir, `engine-${++engines}`), modules, request([...skip, ...ran]), timeoutMs);
          ran.push(...outcome.ran);
          if (!outcome.exhausted) return { ...outcome, ran };
        }
      });
    }
  } finally {
    undo();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs one engine until its file ends, it is stopped in a test, or it runs out of server copies. */
async function* runEngine(dir: string, modules: Array<{ name: string; path: string }>, request: TestRunRequest, timeoutMs: number): AsyncGenerator<TestEvent, Attempt & { exhausted?: boolean }> {
  const ran: string[] = [];
  let current: { name: string; location?: string; moduleUrl: string } | undefined;
  const crashed = function* (error: string) {
    yield failEvent(current?.name ?? '(the test runtime)', 0, { code: 'DG1902', severity: 'error', message: `The test runtime failed: ${error}`, file: request.file });
    return { ran: current ? [...ran, current.name] : ran };
  };
  const ended = function* (why: string) {
    if (stopped && current) return { ran, stopped: current };
    return yield* crashed(stopped ? `it said nothing for ${silenceMs / 1000} seconds and was stopped` : why);
  };
  // The engine writes a line as each test starts (and waits for the host's acknowledgement) and ends. Silent past a test's limit plus a grace (its fresh runtime is
  // made after its 'start' line; a file may also spin as it loads), it is ended: nothing else stops `while (true) {}`.
  // The engine does not time tests itself: its clock stands still while code runs.
  const silenceMs = timeoutMs + GRACE_MS;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stopped = true;
      void engine.kill();
    }, silenceMs);
  };
  let engine: WorkerdEngine;
  try {
    engine = await WorkerdEngine.start({ dir, modules, durableObject: { className: 'TestStore', storageDir: join(dir, 'storage') }, secrets: {}, heapMb: HEAP_MB, compatibilityDate: '2025-09-01', startTimeoutMs: START_TIMEOUT_MS });
  } catch (error) {
    return yield* crashed(error instanceof Error ? error.message : String(error));
  }
  try {
    watch();
    const response = await fetch(`http://127.0.0.1:${engine.port}/run`, { method: 'POST', body: JSON.stringify(request) });
    if (!response.ok || !response.body) return yield* crashed(`the engine answered HTTP ${response.status}`);
    const decoder = new TextDecoder();
    let buffered = '';
    const reader = response.body.getReader();
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        return yield* ended(`the engine stopped (${error instanceof Error ? error.message : String(error)})`);
      }
      if (chunk.done) return yield* ended('the engine ended the run without finishing it');
      watch();
      buffered += decoder.decode(chunk.value, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf('\n')) !== -1) {
        const message = JSON.parse(buffered.slice(0, newline)) as TestRunMessage;
        buffered = buffered.slice(newline + 1);
        if (message.type === 'start') {
          current = { name: message.name, moduleUrl: message.moduleUrl, ...(message.location ? { location: message.location } : {}) };
          // Everything before this line has arrived: the test may run (an engine ended meanwhile is noticed on the stream).
          void fetch(`http://127.0.0.1:${engine.port}${ACK_PATH}`, { method: 'POST' }).catch(() => undefined);
        } else if (message.type === 'event') {
          const event = message.event;
          if (event.kind === 'test.case.pass' || event.kind === 'test.case.fail') {
            ran.push(event.name);
            current = undefined;
          }
          yield event;
        } else if (message.type === 'done') {
          return { ran };
        } else if (message.type === 'exhausted') {
          return { ran, exhausted: true };
        } else {
          return yield* crashed(message.error);
        }
      }
    }
  } catch (error) {
    return yield* ended(error instanceof Error ? error.message : String(error));
  } finally {
    clearTimeout(timer);
    await engine.kill();
  }
}
