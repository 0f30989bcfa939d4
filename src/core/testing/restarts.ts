/**
 * Running one test file to its end when the host may have to stop it: a host stops a runaway test
 * (`while (true) {}`) only by ending the thread it runs on, so the file's remaining tests go on in a
 * fresh one. The same loop serves `platform test`'s workerd engines and the browser's sandboxes.
 */
import { failEvent, type TestEvent } from './events.ts';
import { loadModuleMap } from './locate.ts';
import { timeoutFailure } from './run-file.ts';

/** A test an attempt was stopped in. */
export interface StoppedTest {
  name: string;
  location?: string;
  /** The URL the test file was imported under in the stopped attempt (to map `location`). */
  moduleUrl: string;
}

/** How one attempt ended: the tests it ran, and the test it was stopped in, if it was. */
export interface Attempt {
  ran: string[];
  /** The engine was lost in a test (out of memory, a broken message), already reported: the rest of the file goes on in a fresh one. */
  lost?: boolean;
  stopped?: StoppedTest;
  /** The engine was ended in a test's call `call` (its index in the test) whose handler ran past the deadline `deadlineMs`. */
  overdue?: StoppedTest & { call: number; deadlineMs: number };
}

/** Calls, by test and index in the test, that ran past the handler deadline in an earlier attempt. */
export type OverdueCalls = Record<string, number[]>;

/**
 * Runs `attempt` (skipping the tests already run) until an attempt ends by itself, yielding its events
 * and DG1906 for each test an attempt was stopped in. An attempt whose engine was lost in a test goes on
 * the same way (its failure already reported); each attempt runs at least the test it ended in, so this ends.
 *
 * An attempt ended in a call past the handler deadline runs that test again from its start, on fresh
 * state, with each such call answered 504 `handler_deadline_exceeded` (`overdue`): the test sees the
 * answer a deployed app gives. Each such call spent a deadline of the test's time; once they add up to
 * the test's limit, the test is stopped as a runaway one (DG1906), so this ends too.
 */
export async function* runFileToEnd(
  test: { file: string; map: string },
  timeoutMs: number,
  attempt: (skip: string[], overdue: OverdueCalls) => AsyncGenerator<TestEvent, Attempt>,
  stopHere: () => boolean = () => false,
): AsyncGenerator<TestEvent> {
  const done = new Set<string>();
  const overdue: OverdueCalls = {};
  while (!stopHere()) {
    const outcome = yield* attempt([...done], overdue);
    for (const name of outcome.ran) done.add(name);
    if (outcome.lost) continue;
    let stopped = outcome.stopped;
    if (outcome.overdue) {
      const calls = (overdue[outcome.overdue.name] ??= []);
      calls.push(outcome.overdue.call);
      if (calls.length * outcome.overdue.deadlineMs < timeoutMs) continue;
      stopped = outcome.overdue;
    }
    if (!stopped) return;
    done.add(stopped.name);
    const module = loadModuleMap(stopped.moduleUrl, test.map);
    yield failEvent(stopped.name, timeoutMs, timeoutFailure({ file: test.file, module }, stopped, timeoutMs));
  }
}
