/**
 * The Problems, Console and Tests of one open project's session, for the playground's bottom panel and
 * the embed's strip alike: the test session and the console log made for the session, the console fed
 * by the runtime's reports and faults and by the previews' console lines and crashes (each mapped
 * through the running build's source maps to the app's file and line), a jump from any of them to the
 * editor, and the three tabs and panels that show them.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Diagnostic, Span } from '../../core/diagnostics';
import type { PersonaName } from '../../core/runtime';
import type { CompilerClient } from '../compiler-client';
import { ConsoleLog, consoleLevel, locateInBundle } from '../console/console-log';
import { ConsolePanel } from '../console/console-panel';
import type { PreviewEvents } from '../preview/preview-frame';
import type { RuntimeHost } from '../runtime/runtime-host';
import { rovingTab } from '../tab-list';
import { TestSession, testFilesOf, type TestsState } from '../tests/test-session';
import { TestsPanel } from '../tests/tests-panel';
import { ProblemsPanel } from './panels';
import type { ClientCrash } from './preview-pane';
import { CLIENT_MAP, type Generation, generationText, SERVER_MAP } from '../../core/generation';
import type { ProjectSession } from './project-session';

/** One of the running generation's source maps, if a generation runs. */
const mapOf = (generation: Generation | undefined, path: string): string | undefined => (generation ? generationText(generation, path) : undefined);

/** The panels every view of a session has. */
export type SessionPanelName = 'problems' | 'console' | 'tests';
export const isSessionPanel = (name: string): name is SessionPanelName => name === 'problems' || name === 'console' || name === 'tests';

export interface SessionPanels {
  consoleLog: ConsoleLog;
  tests: TestSession;
  /** The Console's errors (its tab's count). */
  consoleErrors: number;
  /** An uncaught error in a preview's client code: logged in the Console, and where it points (for the preview's overlay). */
  crashOf(persona: PersonaName, message: string, stack: string): ClientCrash;
  /** A preview's console line, for its `events`. */
  onConsole: NonNullable<PreviewEvents['onConsole']>;
  /** Where the editor is asked to go (CodeEditor's `revealAt`): a new object each time. */
  reveal: Span | undefined;
  /** Opens an app file in the editor, at a place if given (a console line's, a crash's); nothing for a file that is gone. */
  openAt(file: string, span?: Span): void;
  /** Opens a problem's (or a failed test's) file at its place. */
  select(d: Diagnostic): void;
}

/** The console log and test session of `session`, subscribed to its runtime; made again for another session. */
export function useSessionPanels(session: ProjectSession, runtime: RuntimeHost, compiler: CompilerClient): SessionPanels {
  const consoleLog = useMemo(() => new ConsoleLog(), [session]);
  const tests = useMemo(
    () =>
      new TestSession(compiler, {
        files: () => session.state.project.files,
        log: (kind, fields) => session.log(kind, fields),
        // A test's console lines, its handlers' included: labelled with the test file and test, apart from the previews' personas.
        console: ({ file, test, level, message, location }) => consoleLog.add({ source: 'test', level, message, context: `${file} › ${test}`, ...(location ? { location } : {}) }),
      }),
    [session, consoleLog],
  );
  const [, rerender] = useState(0);
  useEffect(() => {
    const off = tests.subscribe(() => rerender((n) => n + 1));
    return () => {
      off();
      tests.dispose();
    };
  }, [tests]);
  const [consoleErrors, setConsoleErrors] = useState(0);
  useEffect(() => consoleLog.subscribe(() => setConsoleErrors(consoleLog.entries.filter((e) => e.level === 'error').length)), [consoleLog]);
  // The generation whose bundles (and source maps) are running: what the app's stacks refer to.
  const running = useRef(session.state.generation);
  running.current = session.state.generation;
  useEffect(() => {
    const offs = [
      runtime.onReport(({ persona, operation, logs, error, stack }) => {
        // Where each line was written (its call site, or an Error it was given), else a stack in its text.
        for (const line of logs) consoleLog.add({ source: 'server', persona, level: line.level, message: line.message, context: operation, ...located(line.at, mapOf(running.current, SERVER_MAP), 'server', line.message) });
        // Where the handler threw: the frames its report carries (never its answer), through the server bundle's map.
        if (error) {
          const { location } = consoleLog.add({ source: 'server', persona, level: 'error', message: `${error.code}: ${error.message}`, context: `${operation} failed`, ...located(stack, mapOf(running.current, SERVER_MAP), 'server') });
          session.log('runtime.error', { persona, operation, code: error.code, message: error.message, ...(location ? { file: location.file, line: location.span.line } : {}) });
        }
      }),
      runtime.onFault((message) => consoleLog.add({ source: 'server', level: 'error', message, uncaught: true, ...located(message, mapOf(running.current, SERVER_MAP), 'server') })),
    ];
    return () => offs.forEach((off) => off());
  }, [runtime, consoleLog, session]);
  const [reveal, setReveal] = useState<Span | undefined>();
  const openAt = (file: string, span?: Span) => {
    if (session.state.project.files[file] === undefined) return;
    session.openFile(file);
    if (span) setReveal({ ...span });
  };
  return {
    consoleLog,
    tests,
    consoleErrors,
    crashOf: (persona, message, stack) => {
      const entry = consoleLog.add({ source: 'client', persona, level: 'error', message, uncaught: true, ...located(stack, mapOf(running.current, CLIENT_MAP), 'client') });
      return { message, ...(entry.location ? { location: entry.location } : {}) };
    },
    onConsole: ({ persona, level, message, stack }) => consoleLog.add({ source: 'client', persona, level: consoleLevel(level), message, ...located(stack, mapOf(running.current, CLIENT_MAP), 'client') }),
    reveal,
    openAt,
    select: (d) => {
      if (d.file) openAt(d.file, d.span);
    },
  };
}

/** `{ location }` when a stack (or a line holding one) maps to the app's files, else nothing. */
function located(stack: string | undefined, sourceMap: string | undefined, bundle: 'client' | 'server', orElse?: string): { location?: { file: string; span: Span } } {
  const location = locateInBundle(stack, sourceMap, bundle) ?? locateInBundle(orElse, sourceMap, bundle);
  return location ? { location } : {};
}

export interface SessionTabsProps {
  /** The tab shown (another view's own panel: none of these). */
  selected: string;
  onSelect(name: SessionPanelName): void;
  panels: SessionPanels;
  /** The session's problems (problemsOf its diagnostics) and whether the type check of the current files ran. */
  problems: Diagnostic[];
  checked: boolean;
}

/** The Problems, Console and Tests tabs with their counts, for a tab list that uses tabListKeys. */
export function SessionTabs({ selected, onSelect, panels, problems, checked }: SessionTabsProps) {
  const errors = problems.filter((d) => d.severity === 'error').length;
  const tests: TestsState = panels.tests.state;
  return (
    <>
      <button type="button" role="tab" aria-selected={selected === 'problems'} tabIndex={rovingTab(selected === 'problems')} onClick={() => onSelect('problems')}>
        Problems{' '}
        <span class={`count ${errors ? 'has-errors' : ''}`} data-testid="problem-count" title={checked ? undefined : 'Checking…'}>
          {checked || problems.length ? problems.length : '…'}
        </span>
      </button>
      <button type="button" role="tab" aria-selected={selected === 'console'} tabIndex={rovingTab(selected === 'console')} onClick={() => onSelect('console')}>
        Console{' '}
        {panels.consoleErrors > 0 && (
          <span class="count has-errors" data-testid="console-errors">
            {panels.consoleErrors}
          </span>
        )}
      </button>
      <button type="button" role="tab" aria-selected={selected === 'tests'} tabIndex={rovingTab(selected === 'tests')} onClick={() => onSelect('tests')}>
        Tests{' '}
        {tests.status !== 'idle' && (
          <span class={`count ${tests.failed ? 'has-errors' : ''}`} data-testid="test-count">
            {tests.failed ? `${tests.failed} failed` : `${tests.passed} passed`}
          </span>
        )}
      </button>
    </>
  );
}

export interface SessionPanelProps {
  name: SessionPanelName;
  panels: SessionPanels;
  problems: Diagnostic[];
  checked: boolean;
  /** The project's files (the Tests list its test files before the first run). */
  files: Record<string, string>;
  /** Runs the tests: all, a file's or one. */
  onRun(scope?: { file?: string; name?: string }): void;
}

/** The panel of one of the three tabs. */
export function SessionPanel({ name, panels, problems, checked, files, onRun }: SessionPanelProps) {
  if (name === 'problems') return <ProblemsPanel diagnostics={problems} checked={checked} onSelect={panels.select} />;
  if (name === 'console') return <ConsolePanel log={panels.consoleLog} onOpen={panels.openAt} />;
  return <TestsPanel state={panels.tests.state} testFiles={testFilesOf(files)} onRun={onRun} onSelect={panels.select} />;
}
