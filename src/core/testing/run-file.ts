/**
 * Runs the tests of one test file: each `test()` against a fresh runtime (an empty database and store),
 * calls made as personas through the wire codec, exactly as a client's would travel. Failures become
 * DG1903 (the file threw while loading), DG1904 (an assertion), DG1905 (a throw, a refused call) and
 * DG1906 (over the time limit). Host-agnostic: the host imports modules and makes runtimes.
 */
import { diagnostic } from '../diagnostics/index.ts';
import { encodeJson, hasRuntimeErrorShape } from '../../modules/wire.ts';
import { errorResponse, type AppRuntime, deadlineExceeded, type CallOutcome, isPersona, personaAuth, type PersonaName } from '../runtime/index.ts';
import { failEvent, passEvent, type TestEvent, type TestFailure } from './events.ts';
import { locate, type LoadedModule } from './locate.ts';

export const TEST_TIMEOUT_MS = 20_000;
const HOST_KEY = Symbol.for('platform.test.host');
const ASSERTION = Symbol.for('platform.AssertionFailure');

export interface TestFileRun {
  /** The test file, project-relative (tests/…). */
  file: string;
  /** The app's name (persona ids are derived from it). */
  appName: string;
  /** The test bundle's module, for mapping stack frames to the test's source. */
  module: LoadedModule;
  /** Imports the test bundle, which registers its tests with the installed host. */
  importTests(): Promise<void>;
  /** A runtime over fresh, empty state. */
  newRuntime(): Promise<AppRuntime>;
  /** Random bytes for session ids. */
  sessionId(): string;
  now(): number;
  /**
   * For a host that stops a handler spinning past its deadline by ending the engine (workerd): each call
   * (query, mutation or endpoint request) of a test is announced as its handler begins and as it ends,
   * by its index in the test, and goes on once the host has the announcement.
   */
  watchCall?(event: 'begin' | 'end', index: number): Promise<void>;
  /**
   * Calls, by test and index in the test, an earlier engine was ended in past the deadline: the test runs
   * again from its start on fresh state, and each of these calls is answered 504
   * `handler_deadline_exceeded` as the host answered it then, its handler not run (nothing it did was kept).
   */
  overdue?: Readonly<Record<string, readonly number[]>>;
  /** The handler deadline the runtime holds calls to (for an overdue call's answer). */
  handlerDeadlineMs?: number;
}

interface Registered {
  name: string;
  fn: () => unknown;
  location?: string;
}

function isAssertion(error: unknown): error is Error & { matcher: string; expectedText: string; actualText: string } {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[ASSERTION] === true;
}

const WORKSPACE_HINT =
  'A workspace-scoped refusal usually means the persona lacks that membership: alice is in ws-team and ws-alice, bob in ws-team, guest in none.';

function failureOf(error: unknown, run: TestFileRun, test: Registered | undefined): TestFailure {
  const stack = error instanceof Error ? error.stack : undefined;
  const where = locate(stack, run.module) ?? locate(test?.location, run.module) ?? { file: run.file };
  const at = { file: where.file, ...('span' in where ? { span: where.span } : {}) };
  if (isAssertion(error)) {
    // The first line says what was asserted; the values travel in expected and actual.
    const headline = error.message.split('\n')[0]!.trim();
    return { ...diagnostic('DG1904', headline, at), kind: 'assertion', matcher: error.matcher, expected: error.expectedText, actual: error.actualText };
  }
  if (hasRuntimeErrorShape(error)) {
    const workspace = /workspace/i.test(error.message);
    return { ...diagnostic('DG1905', `A call was refused: ${error.status} ${error.code}: ${error.message}`, { ...at, hint: workspace ? WORKSPACE_HINT : 'Wrap an expected refusal in expectFailure(…).' }), kind: 'error' };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { ...diagnostic('DG1905', `The test threw: ${message}`, at), kind: 'error' };
}

/** Runs every test of a file (or only `only`), yielding an event per test. */
export interface RunFileOptions {
  /** Run only the test with this name. */
  only?: string;
  /** Tests not to run (already run by a host that had to restart). */
  skip?: ReadonlySet<string>;
  timeoutMs?: number;
  /** Called as each test starts, with where it was registered (for a host that may have to stop it). */
  onStart?(name: string, location: string | undefined): void;
}

export async function* runTestFile(run: TestFileRun, options: RunFileOptions = {}): AsyncGenerator<TestEvent> {
  const timeoutMs = options.timeoutMs ?? TEST_TIMEOUT_MS;
  const registered: Registered[] = [];
  let runtime: AppRuntime | undefined;
  const sessions = new Map<PersonaName, string>();
  const auth = (persona: unknown) => {
    if (!isPersona(persona)) throw new Error(`Unknown persona ${JSON.stringify(persona)}: use alice, bob or guest.`);
    if (!sessions.has(persona)) sessions.set(persona, run.sessionId());
    return personaAuth(run.appName, persona, sessions.get(persona));
  };
  const current = () => {
    if (!runtime) throw new Error('Calls can be made only while a test runs.');
    return runtime;
  };
  // The running test's calls, numbered as the test makes them and run one at a time (as the runtime runs
  // them), so that a host watching them knows which handler is running.
  let test: Registered | undefined;
  let calls = 0;
  let queue: Promise<unknown> = Promise.resolve();
  const watched = <T>(overdueAnswer: (outcome: CallOutcome) => T, work: (runtime: AppRuntime) => Promise<T>): Promise<T> => {
    const runtime = current();
    const index = calls++;
    const name = test?.name;
    const turn = queue.then(async () => {
      if (name !== undefined && run.overdue?.[name]?.includes(index)) return overdueAnswer(deadlineExceeded(run.handlerDeadlineMs ?? runtime.limits.handlerDeadlineMs));
      await run.watchCall?.('begin', index);
      try {
        return await work(runtime);
      } finally {
        await run.watchCall?.('end', index);
      }
    });
    queue = turn.catch(() => undefined);
    return turn;
  };
  const slot = globalThis as { [HOST_KEY]?: unknown };
  slot[HOST_KEY] = {
    register(name: string, fn: () => unknown, location?: string) {
      registered.push({ name, fn, ...(location ? { location } : {}) });
    },
    async call(persona: unknown, kind: 'query' | 'mutation', name: string, input: unknown) {
      // The body a client sends (modules/client.ts), through the wire route's own checks (requestBytes,
      // the form) as dev and hosting apply them to a request: the results cross the wire codec as well.
      const body = encodeJson(input === undefined ? {} : { input });
      const caller = auth(persona);
      const outcome = await watched((answer) => answer, (runtime) => runtime.callWire(caller, kind, name, body));
      // An Error, so its stack leads back to the test's call.
      if (outcome.error) throw Object.assign(new Error(outcome.error.message), { status: outcome.status, code: outcome.error.code, errorId: outcome.error.errorId });
      return outcome.result;
    },
    async fetch(persona: unknown, request: Request) {
      const caller = auth(persona);
      return watched(errorResponse, (runtime) => runtime.fetch(caller, request));
    },
    setEnv(values: Record<string, string>) {
      current().setEnv(values);
    },
  };

  try {
    try {
      await run.importTests();
    } catch (error) {
      const failure = failureOf(error, run, undefined);
      yield failEvent('(loading the file)', 0, { ...failure, ...diagnostic('DG1903', `${run.file} threw while loading: ${error instanceof Error ? error.message : String(error)}`, { file: failure.file, span: failure.span }), kind: 'load' });
      return;
    }
    for (const registration of registered) {
      test = registration;
      if ((options.only !== undefined && test.name !== options.only) || options.skip?.has(test.name)) continue;
      options.onStart?.(test.name, test.location);
      sessions.clear();
      calls = 0;
      queue = Promise.resolve();
      runtime = await run.newRuntime();
      const started = run.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { [Symbol.for('platform.timeout')]: true })), timeoutMs);
        });
        await Promise.race([Promise.resolve().then(test.fn), timeout]);
        yield passEvent(test.name, run.file, run.now() - started);
      } catch (error) {
        const timedOut = typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[Symbol.for('platform.timeout')] === true;
        const failure = timedOut ? timeoutFailure(run, test, timeoutMs) : failureOf(error, run, test);
        yield failEvent(test.name, run.now() - started, failure);
      } finally {
        clearTimeout(timer);
        runtime = undefined;
      }
    }
  } finally {
    delete slot[HOST_KEY];
  }
}

/** DG1906 for a test that ran past its limit (also used by hosts that had to stop a test by force). */
export function timeoutFailure(run: Pick<TestFileRun, 'file' | 'module'>, test: { name: string; location?: string }, timeoutMs = TEST_TIMEOUT_MS): TestFailure {
  const where = locate(test.location, run.module) ?? { file: run.file };
  return { ...diagnostic('DG1906', `The test "${test.name}" ran past ${timeoutMs / 1000} seconds and was stopped; the other tests still ran.`, { file: where.file, ...('span' in where ? { span: where.span } : {}), hint: 'Look for a loop that never ends or a promise that never settles.' }), kind: 'timeout' };
}
