/**
 * Messages between `platform test` (Node) and its workerd test engine: `POST /run`, answered by a stream of
 * NDJSON lines; the host answers each 'start', 'call' and 'called' line with `POST /ack`, and only then
 * does that test, or that call's handler, run (or the test go on after the call).
 */
import type { Manifest } from '../../src/core/manifest';

/** The body of `POST /run`: one test file's tests, skipping those an earlier engine already ran. */
export interface TestRunRequest {
  file: string;
  manifest: Manifest;
  /** The test bundle's module name in the engine, and its source map. */
  testModule: string;
  testMap: string;
  /** How many copies of the server module the engine holds (`app-0.js` …): one per test. */
  serverCopies: number;
  skip: string[];
  only?: string;
  /** The handler deadline, as dev and hosting hold calls to it (limits.ts, or the platform's own tests' override). */
  handlerDeadlineMs: number;
  /** Calls an earlier engine was ended in past the deadline, by test and index: answered 504 without their handler. */
  overdue?: Record<string, number[]>;
}

/** The answer's lines: the kernel's test messages (src/core/host/test-run.ts), one JSON object a line. */
export type { TestRunMessage } from '../../src/core/host';

export const ACK_PATH = '/ack';

/** The module names of the engine's server copies. */
export const serverCopyName = (index: number) => `app-${index}.js`;
