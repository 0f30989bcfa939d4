/**
 * The per-file test state machine, written once for every engine that runs `platform test` files: the
 * browser's sandboxes (src/ui/tests/test-runner.ts, worker/runtime-sandbox.ts) and workerd
 * (src/adapters/workerd/test-host.ts, worker/workerd-test.ts).
 *
 * - In the engine, `runTestsInEngine` runs a file with the core runner and says what happens as
 *   `TestRunMessage`s: a test starts, a test passed or failed, the file is done.
 * - On the host, `followAttempt` turns those messages, and what the host sees itself (silence past the
 *   limit, an engine that died, a cancel), into test events and the attempt's end: which tests ran and
 *   which test the engine was stopped in. `runFileToEnd` (core/testing/restarts.ts) starts a fresh
 *   engine for the rest of the file after a stop.
 *
 * The engine does not time its tests: a test in `while (true) {}` never yields, and workerd's clock
 * stands still while code runs. The host's watchdog does, from each message it receives.
 */
import { diagnostic, type Span } from '../diagnostics/index.ts';
import { consoleLevels, LOG_LIMITS, type ConsoleCapture, type LogLevel, type LogLine } from '../runtime/index.ts';
import { type TestEvent, failEvent, locate, type LoadedModule, type Attempt, runTestFile, type TestFileRun } from '../testing/index.ts';
import { describeError } from './describe.ts';
import type { Inbox } from './inbox.ts';
import { Watchdog } from './watchdog.ts';

/** Engine → host, one file's run. */
export type TestRunMessage =
  /** A test starts; `moduleUrl` is the URL its file was imported under (to map `location` through the source map). */
  | { type: 'start'; name: string; location?: string; moduleUrl: string }
  /** A test passed or failed (the `platform.dev.v0` event `platform test` prints). */
  | { type: 'event'; event: TestEvent }
  /**
   * A line the test's code, or a handler it called, wrote with `console` (an engine that captures it):
   * the host says whose, by the test that started last. Cut per test as a call's lines are (LOG_LIMITS).
   */
  | { type: 'log'; level: LogLevel; message: string; location?: { file: string; span: Span } }
  /**
   * A call of the running test begins running its handler, or has ended (an engine whose host can end it:
   * the engine waits for the host's acknowledgement of each). `index` numbers the test's calls from 0.
   */
  | { type: 'call'; index: number }
  | { type: 'called'; index: number }
  /** The engine cannot make another fresh runtime (workerd: every copy of the server module is used): the tests not yet run need a fresh engine. */
  | { type: 'exhausted' }
  /** The runner itself failed (not a test: a test's failure is an event). */
  | { type: 'failed'; error: string }
  | { type: 'done' };

const MESSAGE_TYPES = new Set(['start', 'event', 'log', 'call', 'called', 'exhausted', 'failed', 'done']);

const isString = (value: unknown): value is string => typeof value === 'string';
const isOptional = (value: unknown, check: (v: unknown) => boolean) => value === undefined || check(value);
const isSpan = (value: unknown) => {
  if (typeof value !== 'object' || value === null) return false;
  const { line, column } = value as Record<string, unknown>;
  return Number.isInteger(line) && Number.isInteger(column);
};

/** A pass or fail event with the fields the hosts and the tests panel read, of the types they expect. */
function isTestEvent(value: unknown): value is TestEvent {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  if (e.protocol !== 'platform.dev.v0' || !isString(e.name) || typeof e.durationMs !== 'number') return false;
  if (e.kind === 'test.case.pass') return isString(e.file);
  if (e.kind !== 'test.case.fail') return false;
  return (
    isString(e.code) &&
    isString(e.message) &&
    (e.severity === 'error' || e.severity === 'warning' || e.severity === 'info') &&
    ['file', 'hint', 'matcher', 'expected', 'actual'].every((key) => isOptional(e[key], isString)) &&
    isOptional(e.span, isSpan) &&
    isFailure(e.failure)
  );
}

/** The failure a fail event carries whole: Diagnostic-shaped, with the failure's own `kind`. */
function isFailure(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const f = value as Record<string, unknown>;
  return (
    isString(f.code) &&
    isString(f.message) &&
    (f.severity === 'error' || f.severity === 'warning' || f.severity === 'info') &&
    (f.kind === 'assertion' || f.kind === 'error' || f.kind === 'timeout' || f.kind === 'load') &&
    ['file', 'hint', 'matcher', 'expected', 'actual', 'test'].every((key) => isOptional(f[key], isString)) &&
    isOptional(f.span, isSpan)
  );
}

/** The check of a message from an engine running a stranger's code: the host reads only what it checked. */
export function isTestRunMessage(value: unknown): value is TestRunMessage {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  if (typeof message.type !== 'string' || !MESSAGE_TYPES.has(message.type)) return false;
  switch (message.type) {
    case 'start':
      return isString(message.name) && isString(message.moduleUrl) && isOptional(message.location, isString);
    case 'event':
      return isTestEvent(message.event);
    case 'log': {
      const location = message.location as Record<string, unknown> | undefined;
      return consoleLevels.includes(message.level as LogLevel) && isString(message.message) && (location === undefined || (typeof location === 'object' && location !== null && isString(location.file) && isSpan(location.span)));
    }
    case 'failed':
      return isString(message.error);
    case 'call':
    case 'called':
      return Number.isInteger(message.index) && (message.index as number) >= 0;
    default:
      return true;
  }
}

/** Thrown by an engine's `newRuntime` when it cannot make another fresh runtime. */
export const ENGINE_EXHAUSTED = Symbol('engine exhausted');

export interface EngineTestRun extends TestFileRun {
  only?: string;
  /** Tests an earlier engine already ran. */
  skip: readonly string[];
  /** The URL the test module is imported under, once it is (for `start` messages). */
  moduleUrl(): string;
  /** The server bundle as its frames name it, with its map: where a handler a test called wrote a line. */
  serverModule?: LoadedModule;
  /**
   * Waits for the host to acknowledge the last line posted (an engine whose host may end it: what the
   * engine had not sent when it was ended would be lost). With it, each call is announced (`call`,
   * `called`) and goes on once the host has the line, so the host can hold the call to its deadline.
   */
  acknowledged?(): Promise<void>;
  /**
   * The engine's console, captured (installed on its console): what the file writes while loading and
   * each test writes, its handlers included, is posted as `log` lines. Without it nothing is posted.
   */
  console?: ConsoleCapture;
}

/** In the engine: runs one test file and posts what happens, ending with `done`, `exhausted` or `failed`. */
export async function runTestsInEngine(run: EngineTestRun, post: (message: TestRunMessage) => void): Promise<void> {
  // Lines are posted as they are written (a test stopped by force has said what it wrote), loading's
  // until the first test starts, each test's until its result: the host knows which test is running.
  let endLines: (() => void) | undefined;
  // Where a line was written, in the test file (its bundle's map, as a failure's place is found), else in a handler.
  let module: LoadedModule | undefined;
  const where = (at: string | undefined) => {
    if (!at) return undefined;
    if (module?.url !== run.moduleUrl()) module = run.module;
    return locate(at, module) ?? (run.serverModule ? locate(at, run.serverModule) : undefined);
  };
  const collect = () => {
    endLines?.();
    endLines = run.console?.begin(({ level, message, at }) => {
      const location = where(at);
      post({ type: 'log', level, message, ...(location ? { location } : {}) });
    });
  };
  const stopCollecting = () => {
    endLines?.();
    endLines = undefined;
  };
  try {
    collect();
    // Each call announced and acknowledged, when the host can stop a handler past its deadline.
    const acknowledged = run.acknowledged?.bind(run);
    const watched: TestFileRun = acknowledged
      ? Object.assign(Object.create(run) as TestFileRun, {
          watchCall(event: 'begin' | 'end', index: number) {
            post({ type: event === 'begin' ? 'call' : 'called', index });
            return acknowledged();
          },
        })
      : run;
    const events = runTestFile(watched, {
      ...(run.only !== undefined ? { only: run.only } : {}),
      skip: new Set(run.skip),
      // The host times each test from its 'start' message and ends the engine past the limit.
      timeoutMs: 2 ** 31 - 1,
      onStart: (name, location) => {
        stopCollecting();
        post({ type: 'start', name, moduleUrl: run.moduleUrl(), ...(location ? { location } : {}) });
        collect();
      },
    });
    for await (const event of events) {
      stopCollecting();
      post({ type: 'event', event });
    }
    post({ type: 'done' });
  } catch (error) {
    stopCollecting();
    post(error === ENGINE_EXHAUSTED ? { type: 'exhausted' } : { type: 'failed', error: describeError(error) });
  }
}

/** What a host puts in an attempt's inbox: the engine's messages and what the host saw itself. */
export type AttemptItem =
  | TestRunMessage
  /** The engine died, or said something that is not a test message. */
  | { type: 'crashed'; message: string }
  /** The run was cancelled from outside (the user stopped it). */
  | { type: 'cancelled' }
  /** Pushed by `followAttempt`'s own watchdog: nothing came for a test's limit plus the grace. */
  | { type: 'silent' }
  /** Pushed by `followAttempt`'s handler watchdog: the call `index` did not end within the deadline plus the grace. */
  | { type: 'overdue'; index: number };

export type AttemptInbox = Inbox<AttemptItem>;

export interface FollowOptions {
  file: string;
  /** A test's time limit; the engine is stopped after this plus `graceMs` without a message. */
  timeoutMs: number;
  graceMs: number;
  /** A test started (the workerd host acknowledges it, the UI shows it). */
  onStart?(message: Extract<TestRunMessage, { type: 'start' }>): void;
  /**
   * The handler deadline (limits.ts, as dev and hosting hold calls to it): a call that began and has not
   * ended after this plus `graceMs` is a handler that does not yield. The attempt ends there (its engine is
   * ended, as hosting's watchdog ends an app's) and says which call, for the test to run again with that
   * call answered 504 `handler_deadline_exceeded` (restarts.ts).
   */
  deadlineMs?: number;
  /** A call began or ended (the workerd host acknowledges it). */
  onCall?(message: Extract<TestRunMessage, { type: 'call' | 'called' }>): void;
  /** A line written with `console` by `test` (the test that started last, or `(loading the file)`), cut to LOG_LIMITS, and where in the test file, if there. */
  onLog?(test: string, line: LogLine, location?: { file: string; span: Span }): void;
}

/** The end of an attempt: the tests it ran, the test it was stopped in, and whether the engine ran out of fresh runtimes. */
export type AttemptEnd = Attempt & { exhausted?: boolean };

/**
 * On the host: follows one engine's run of (the rest of) one file until it ends, it is stopped, or the
 * engine is lost, yielding the tests' events. The caller ends the engine afterwards, whatever happened.
 */
export async function* followAttempt(inbox: AttemptInbox, options: FollowOptions): AsyncGenerator<TestEvent, AttemptEnd> {
  const ran: string[] = [];
  let current: Attempt['stopped'];
  let started = false;
  const silence = new Watchdog<'run'>(options.timeoutMs + options.graceMs, () => inbox.push({ type: 'silent' }));
  const { deadlineMs } = options;
  const handlers = deadlineMs === undefined ? undefined : new Watchdog<number>(deadlineMs + options.graceMs, (index) => inbox.push({ type: 'overdue', index }));
  const crashed = (message: string): TestEvent =>
    failEvent(current?.name ?? '(the test runtime)', 0, { ...diagnostic('DG1902', `The test runtime failed: ${message}`, { file: options.file }), kind: 'error' });
  // Lines kept of the running test (the engine cuts them; a forged flood is cut here too).
  let logged = 0;
  // Loading the file (its top level) gets the same limit as a test.
  silence.open('run');
  try {
    for (;;) {
      const item = await inbox.next();
      // A line is no sign that a test will finish: a test that logs and never ends is still stopped.
      if (item.type !== 'log') silence.progress();
      switch (item.type) {
        case 'start':
          started = true;
          logged = 0;
          handlers?.clear();
          current = { name: item.name, moduleUrl: item.moduleUrl, ...(item.location ? { location: item.location } : {}) };
          options.onStart?.(item);
          break;
        case 'log': {
          // Between tests (a timer a test left behind) a line has no test to be said of.
          const test = current?.name ?? (started ? undefined : '(loading the file)');
          if (test !== undefined && logged++ <= LOG_LIMITS.lines) {
            const at = item.location ? { file: item.location.file, span: { line: item.location.span.line, column: item.location.span.column } } : undefined;
            options.onLog?.(test, { level: item.level, message: item.message.slice(0, LOG_LIMITS.lineChars) }, at);
          }
          break;
        }
        case 'event': {
          // One result for the test that started, under the file asked for, or the load failure of a file
          // whose tests never started. Anything else is forged (the engine runs the test file's code).
          const event = item.event;
          const loadFailure = !started && event.kind === 'test.case.fail' && event.name === '(loading the file)';
          if (!loadFailure && (event.kind === 'test.run.finish' || !current || event.name !== current.name)) {
            yield crashed(`it reported a result for ${'name' in event ? `"${event.name}"` : 'the run'}, which is not the test that started`);
            return current ? { ran: [...ran, current.name], lost: true } : { ran };
          }
          ran.push(event.name);
          current = undefined;
          handlers?.clear();
          started = true;
          logged = 0;
          yield event.kind === 'test.case.pass' ? { ...event, file: options.file } : event;
          break;
        }
        case 'call':
          if (current) handlers?.open(item.index);
          options.onCall?.(item);
          break;
        case 'called':
          handlers?.close(item.index);
          options.onCall?.(item);
          break;
        case 'overdue':
          if (current && deadlineMs !== undefined) return { ran, overdue: { ...current, call: item.index, deadlineMs } };
          break;
        case 'done':
        case 'cancelled':
          return { ran };
        case 'exhausted':
          return { ran, exhausted: true };
        case 'failed':
          // The runner itself failed (say, the server module threw as it was imported): every engine would.
          yield crashed(item.error);
          return { ran: current ? [...ran, current.name] : ran };
        case 'crashed':
          // The engine was lost: in a test, that test failed and the rest of the file goes on in a fresh engine.
          yield crashed(item.message);
          return current ? { ran: [...ran, current.name], lost: true } : { ran };
        case 'silent': {
          if (current) return { ran, stopped: current };
          const seconds = (options.timeoutMs + options.graceMs) / 1000;
          if (started) {
            yield crashed(`it said nothing for ${seconds} seconds between tests and was stopped`);
          } else {
            yield failEvent('(loading the file)', options.timeoutMs, {
              ...diagnostic('DG1903', `${options.file} did not finish loading within ${options.timeoutMs / 1000} seconds and was stopped.`, { file: options.file, hint: 'Look for a loop at the top level of the file.' }),
              kind: 'load',
            });
          }
          return { ran };
        }
        default: {
          const unknown: never = item;
          yield crashed(`it sent an unknown message ${JSON.stringify(unknown).slice(0, 200)}`);
          return { ran };
        }
      }
    }
  } finally {
    silence.clear();
    handlers?.clear();
  }
}
