/**
 * Running one test file to its end when the host may have to stop it: a host stops a runaway test
 * (`while (true) {}`) only by ending the thread it runs on, so the file's remaining tests go on in a
 * fresh one. The same loop serves `platform test`'s workerd engines and the browser's sandboxes.
 */
import { failEvent, type TestEvent } from './events';
import { loadModuleMap } from './locate';
import { timeoutFailure } from './run-file';

/** How one attempt ended: the tests it ran, and the test it was stopped in, if it was. */
export interface Attempt {
  ran: string[];
  /** The engine was lost in a test (out of memory, a broken message), already reported: the rest of the file goes on in a fresh one. */
  lost?: boolean;
  stopped?: {
    name: string;
    location?: string;
    /** The URL the test file was imported under in the stopped attempt (to map `location`). */
    moduleUrl: string;
  };
}

/**
 * Runs `attempt` (skipping the tests already run) until an attempt ends by itself, yielding its events
 * and DG1906 for each test an attempt was stopped in. An attempt whose engine was lost in a test goes on
 * the same way (its failure already reported); each attempt runs at least the test it ended in, so this ends.
 */
export async function* runFileToEnd(
  test: { file: string; map: string },
  timeoutMs: number,
  attempt: (skip: string[]) => AsyncGenerator<TestEvent, Attempt>,
  stopHere: () => boolean = () => false,
): AsyncGenerator<TestEvent> {
  const done = new Set<string>();
  while (!stopHere()) {
    const outcome = yield* attempt([...done]);
    for (const name of outcome.ran) done.add(name);
    if (outcome.lost) continue;
    if (!outcome.stopped) return;
    done.add(outcome.stopped.name);
    const module = loadModuleMap(outcome.stopped.moduleUrl, test.map);
    yield failEvent(outcome.stopped.name, timeoutMs, timeoutFailure({ file: test.file, module }, outcome.stopped, timeoutMs));
  }
}
