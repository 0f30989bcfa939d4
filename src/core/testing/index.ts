/** `platform test`: running and reporting an app's tests, the same in every host. The folder's entry: what the rest of the code base imports of it. */
export { DEV_PROTOCOL, failEvent, finishEvent, formatEvent, passEvent, type TestEvent, type TestFailure } from './events.ts';
export { type LoadedModule, loadModuleMap, locate } from './locate.ts';
export { type Attempt, type OverdueCalls, runFileToEnd } from './restarts.ts';
export { runTestFile, TEST_TIMEOUT_MS, type TestFileRun } from './run-file.ts';
