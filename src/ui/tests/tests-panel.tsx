/** The tests panel: run all, a file's or one test; pass or fail per test, expected against actual, and a jump to the failing line. */
import type { Diagnostic } from '../../core/diagnostics';
import { DiagnosticList } from '../diagnostic-list';
import type { TestOutcome, TestsState } from './test-session';

export interface TestsPanelProps {
  state: TestsState;
  /** The project's test files (shown before the first run). */
  testFiles: string[];
  onRun(scope?: { file?: string; name?: string }): void;
  /** Opens a failure's (or a problem's) file at its line. */
  onSelect(d: Diagnostic): void;
}

const ICON: Record<TestOutcome['status'], string> = { running: '…', passed: '✓', failed: '✗' };

function summary(state: TestsState): string {
  switch (state.status) {
    case 'idle':
      return 'Not run yet. Run the tests with the button or Mod-Enter (Ctrl-Enter, ⌘-Enter on a Mac).';
    case 'compiling':
      return 'Compiling the tests…';
    case 'running':
      return `Running… ${state.passed} passed, ${state.failed} failed so far`;
    case 'failed':
      return 'The tests could not run: see the problems below.';
    case 'done':
      return `${state.passed} passed, ${state.failed} failed${state.durationMs !== undefined ? ` in ${(state.durationMs / 1000).toFixed(1)} s` : ''}`;
    default: {
      const unknown: never = state.status;
      return String(unknown);
    }
  }
}

function Failure({ failure, onSelect }: { failure: NonNullable<TestOutcome['failure']>; onSelect(d: Diagnostic): void }) {
  const where = failure.file ? `${failure.file}${failure.span ? `:${failure.span.line}:${failure.span.column}` : ''}` : undefined;
  return (
    <div class="test-failure">
      <p class="test-message">
        <span class="code">{failure.code}</span> {failure.message}
      </p>
      {failure.matcher !== undefined && (
        <dl class="test-values">
          <dt>Expected</dt>
          <dd>
            <code data-testid="expected">{failure.expected}</code>
          </dd>
          <dt>Actual</dt>
          <dd>
            <code data-testid="actual">{failure.actual}</code>
          </dd>
        </dl>
      )}
      {failure.hint && <p class="hint">{failure.hint}</p>}
      {where && (
        <button type="button" class="link test-location" onClick={() => onSelect(failure)} title="Show in the editor">
          {where}
        </button>
      )}
    </div>
  );
}

export function TestsPanel({ state, testFiles, onRun, onSelect }: TestsPanelProps) {
  const busy = state.status === 'compiling' || state.status === 'running';
  const files = [...new Set([...testFiles, ...state.results.map((r) => r.file)])].sort();
  return (
    <div class="tests-panel" aria-label="Tests">
      <div class="tests-toolbar">
        <button type="button" class="primary" onClick={() => onRun()} disabled={busy && state.status === 'compiling'} title="Run every test (Mod-Enter)">
          {busy ? 'Run again' : 'Run all tests'}
        </button>
        <span class={`tests-summary ${state.failed ? 'has-failures' : state.status === 'done' ? 'ok' : ''}`} data-testid="tests-summary" role="status">
          {summary(state)}
        </span>
      </div>
      {state.diagnostics.length > 0 && <DiagnosticList diagnostics={state.diagnostics} onSelect={onSelect} />}
      {files.length === 0 && <p class="muted tests-empty">This project has no tests. Add one as tests/&lt;name&gt;.test.ts.</p>}
      {files.map((file) => (
        <section key={file} class="test-file" aria-label={file}>
          <h3>
            <span>{file}</span>
            <button type="button" class="link" onClick={() => onRun({ file })} title={`Run the tests of ${file}`}>
              Run file
            </button>
          </h3>
          <ul>
            {state.results
              .filter((r) => r.file === file)
              .map((r) => (
                <li key={r.name} class={`test-case ${r.status}`} data-status={r.status}>
                  <div class="test-row">
                    <span class="test-icon" aria-hidden="true">
                      {ICON[r.status]}
                    </span>
                    <span class="test-name">{r.name}</span>
                    {r.durationMs !== undefined && <span class="muted">{r.durationMs} ms</span>}
                    <button type="button" class="link run-one" onClick={() => onRun({ file, name: r.name })} title="Run this test alone" aria-label={`Run "${r.name}"`}>
                      Run
                    </button>
                  </div>
                  {r.failure && <Failure failure={r.failure} onSelect={onSelect} />}
                </li>
              ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
