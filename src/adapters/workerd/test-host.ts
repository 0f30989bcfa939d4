/**
 * `platform test` in workerd: each test file runs in an engine of its own (src/adapters/workerd/
 * workerd-engine.ts, the launcher hosted apps use) with no Node, no network and a heap limit, so a test
 * file from a stranger cannot reach the builder's files, processes or network. A test that does not
 * finish in time is stopped by ending its engine (the only way to stop `while (true) {}`), reported as
 * DG1906, and the file's remaining tests go on in a fresh engine. A call whose handler runs past the
 * handler deadline is stopped the same way and answered 504 `handler_deadline_exceeded`, as dev and
 * hosting answer it: the test runs again in a fresh engine with that call so answered (restarts.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type TestEvent, runFileToEnd, type OverdueCalls, TEST_TIMEOUT_MS } from '../../core/testing';
import { type PreparedTests } from '../../core/build';
import { describeError, Inbox, followAttempt, isTestRunMessage, type AttemptEnd, type AttemptInbox } from '../../core/host';
import { limitsOf } from '../../core/runtime';
import { ACK_PATH, serverCopyName, type TestRunRequest } from '../../../worker/protocol/workerd-test';
import { bundleWorkerEntry, endEnginesOnSignal, WorkerdEngine } from './workerd-engine';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Time allowed beyond a test's own limit before its engine is ended. */
const GRACE_MS = 1_000;
const HEAP_MB = 512;
const START_TIMEOUT_MS = 30_000;
/** Copies of the server module per engine: one per test, the count estimated from the bundle (an engine that runs out hands over to a fresh one). */
const MAX_COPIES = 200;

export interface WorkerdTestOptions {
  only?: string;
  timeoutMs?: number;
  /** The handler deadline; by default the manifest's limits' (limits.ts), as dev and hosting apply it. */
  handlerDeadlineMs?: number;
  /** Stops the run: the engine running is ended at once and no other starts (`platform dev` stopping, or a save). */
  signal?: AbortSignal;
}

export async function* runTestsInWorkerd(prepared: PreparedTests, options: WorkerdTestOptions = {}): AsyncGenerator<TestEvent> {
  if (!prepared.server || !prepared.manifest) return;
  const manifest = prepared.manifest;
  const timeoutMs = options.timeoutMs ?? TEST_TIMEOUT_MS;
  const handlerDeadlineMs = limitsOf(manifest, options.handlerDeadlineMs ? { handlerDeadlineMs: options.handlerDeadlineMs } : {}).handlerDeadlineMs;
  const dir = mkdtempSync(join(tmpdir(), 'platform-test-'));
  // A command that handles signals itself (`platform dev`, whose stop ends this run through `signal` and
  // exits 0) owns them: ending the engines and raising the signal again here would kill it mid-stop.
  // Otherwise (`platform test`), a signal ends the engines and this run's files, then takes its course.
  const undo = SIGNALS.some((name) => process.listenerCount(name) > 0) ? () => undefined : endEnginesOnSignal(() => rmSync(dir, { recursive: true, force: true }));
  try {
    const entryPath = await bundleWorkerEntry('workerd-test', join(dir, 'entry'));
    const serverPath = join(dir, 'modules', 'app.js');
    mkdirSync(dirname(serverPath), { recursive: true });
    writeFileSync(serverPath, prepared.server.code);
    let engines = 0;
    const { signal } = options;
    for (const test of prepared.tests) {
      if (signal?.aborted) return;
      const testModule = test.file.replace(/\.[^./]+$/, '.js');
      const testPath = join(dir, 'modules', testModule);
      mkdirSync(dirname(testPath), { recursive: true });
      writeFileSync(testPath, test.code);
      const copies = Math.min(MAX_COPIES, Math.max(1, (test.code.match(/\btest\(/g) ?? []).length));
      const modules = [{ name: 'entry.js', path: entryPath }, { name: testModule, path: testPath }, ...Array.from({ length: copies }, (_, i) => ({ name: serverCopyName(i), path: serverPath }))];
      const request = (skip: string[], overdue: OverdueCalls): TestRunRequest => ({ file: test.file, manifest, testModule, testMap: test.map, serverCopies: copies, skip, handlerDeadlineMs, overdue, ...(options.only !== undefined ? { only: options.only } : {}) });
      yield* runFileToEnd(test, timeoutMs, async function* (skip, overdue) {
        // An engine that used every copy of the server module hands the remaining tests to a fresh one.
        const ran: string[] = [];
        for (;;) {
          const outcome = yield* runEngine(join(dir, `engine-${++engines}`), modules, request([...skip, ...ran], overdue), timeoutMs, signal);
          ran.push(...outcome.ran);
          if (!outcome.exhausted || signal?.aborted) return { ...outcome, ran };
        }
      }, () => signal?.aborted === true);
    }
  } finally {
    undo();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs one engine until its file ends, it is stopped in a test, or it runs out of server copies: the
 * engine's NDJSON lines go to the kernel's attempt (src/core/host/test-run.ts), which times the tests.
 */
async function* runEngine(dir: string, modules: Array<{ name: string; path: string }>, request: TestRunRequest, timeoutMs: number, signal: AbortSignal | undefined): AsyncGenerator<TestEvent, AttemptEnd> {
  const inbox: AttemptInbox = new Inbox();
  if (signal?.aborted) return { ran: [] };
  const cancel = () => inbox.push({ type: 'cancelled' });
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    return yield* followEngine(dir, modules, request, timeoutMs, inbox);
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}

/** Starts the engine and follows its run (see runEngine). */
async function* followEngine(dir: string, modules: Array<{ name: string; path: string }>, request: TestRunRequest, timeoutMs: number, inbox: AttemptInbox): AsyncGenerator<TestEvent, AttemptEnd> {
  let engine: WorkerdEngine;
  try {
    engine = await WorkerdEngine.start({ dir, modules, durableObject: { className: 'TestStore', storageDir: join(dir, 'storage') }, secrets: {}, heapMb: HEAP_MB, compatibilityDate: '2025-09-01', startTimeoutMs: START_TIMEOUT_MS });
  } catch (error) {
    inbox.push({ type: 'crashed', message: describeError(error) });
    return yield* followAttempt(inbox, { file: request.file, timeoutMs, graceMs: GRACE_MS });
  }
  const port = engine.port;
  void readLines(engine, request, inbox);
  // Everything before this line has arrived: the test, or the call, may run (an engine ended meanwhile is noticed on the stream).
  const acknowledge = () => void fetch(`http://127.0.0.1:${port}${ACK_PATH}`, { method: 'POST' }).catch(() => undefined);
  try {
    return yield* followAttempt(inbox, {
      file: request.file,
      timeoutMs,
      graceMs: GRACE_MS,
      deadlineMs: request.handlerDeadlineMs,
      onStart: acknowledge,
      onCall: acknowledge,
    });
  } finally {
    await engine.kill();
  }
}

/** Posts the run and puts each line of the engine's answer in the inbox; an answer that ends early is a crash. */
async function readLines(engine: WorkerdEngine, request: TestRunRequest, inbox: AttemptInbox): Promise<void> {
  try {
    const response = await fetch(`http://127.0.0.1:${engine.port}/run`, { method: 'POST', body: JSON.stringify(request) });
    if (!response.ok || !response.body) {
      inbox.push({ type: 'crashed', message: `the engine answered HTTP ${response.status}` });
      return;
    }
    const decoder = new TextDecoder();
    let buffered = '';
    const reader = response.body.getReader();
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      buffered += decoder.decode(chunk.value, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          message = undefined;
        }
        inbox.push(isTestRunMessage(message) ? message : { type: 'crashed', message: 'the engine sent a line that is not a test message' });
      }
    }
    inbox.push({ type: 'crashed', message: 'the engine ended the run without finishing it' });
  } catch (error) {
    // The connection ends as the process does: its last words (a heap limit) arrive with its exit.
    await Promise.race([engine.exited, new Promise((resolve) => setTimeout(resolve, 1_000))]);
    inbox.push({ type: 'crashed', message: engine.lostReason() ?? `the engine stopped (${describeError(error)})` });
  }
}
