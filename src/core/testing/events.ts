/** The `platform.dev.v0` events of a test run, and the readable report made from them. */
import { hasErrors, type Diagnostic } from '../diagnostics/index.ts';

export const DEV_PROTOCOL = 'platform.dev.v0';

/** A failed test: a Diagnostic plus the test's name, its kind, and for assertions the matcher and both values. */
export type TestFailure = Diagnostic & {
  test?: string;
  kind?: 'assertion' | 'error' | 'timeout' | 'load';
  matcher?: string;
  expected?: string;
  actual?: string;
};

export type TestEvent =
  | { protocol: typeof DEV_PROTOCOL; kind: 'test.case.pass'; name: string; file: string; durationMs: number }
  /**
   * Diagnostic-shaped itself (its code, message, file, span, matcher, expected, actual), and carrying
   * the failure whole in `failure`, where `kind` is the failure's (assertion, error, timeout, load):
   * the event's own `kind` is the event's, so the two cannot share one object (docs/decisions.md).
   */
  | ({ protocol: typeof DEV_PROTOCOL; kind: 'test.case.fail'; name: string; durationMs: number } & Omit<TestFailure, 'kind'> & { failure: TestFailure & { kind: NonNullable<TestFailure['kind']> } })
  | { protocol: typeof DEV_PROTOCOL; kind: 'test.run.finish'; ok: boolean; passed: number; failed: number; diagnostics: Diagnostic[] };

export function passEvent(name: string, file: string, durationMs: number): TestEvent {
  return { protocol: DEV_PROTOCOL, kind: 'test.case.pass', name, file, durationMs: Math.round(durationMs) };
}

export function failEvent(name: string, durationMs: number, failure: TestFailure): TestEvent {
  const { kind, ...rest } = failure;
  return { protocol: DEV_PROTOCOL, kind: 'test.case.fail', name, durationMs: Math.round(durationMs), ...rest, failure: { ...failure, test: failure.test ?? name, kind: kind ?? 'error' } };
}

/** The run's last event: ok only when nothing is an error, no test failed and some test passed. */
export function finishEvent(passed: number, failed: number, diagnostics: Diagnostic[]): Extract<TestEvent, { kind: 'test.run.finish' }> {
  return { protocol: DEV_PROTOCOL, kind: 'test.run.finish', ok: !hasErrors(diagnostics) && failed === 0 && passed > 0, passed, failed, diagnostics };
}

/** One line of the readable report for an event. */
export function formatEvent(event: TestEvent): string {
  switch (event.kind) {
    case 'test.case.pass':
      return `✓ ${event.file} › ${event.name} (${event.durationMs} ms)`;
    case 'test.case.fail': {
      const where = event.file ? `${event.file}${event.span ? `:${event.span.line}:${event.span.column}` : ''}` : '';
      const lines = [`✗ ${where ? `${where} › ` : ''}${event.name}`, `    ${event.severity} ${event.code}: ${event.message}`];
      if (event.matcher) lines.push(`    expected: ${event.expected}`, `    actual:   ${event.actual}`);
      if (event.hint) lines.push(`    hint: ${event.hint}`);
      return lines.join('\n');
    }
    case 'test.run.finish':
      return `${event.passed} passed, ${event.failed} failed`;
    default: {
      const unknown: never = event;
      return String(unknown);
    }
  }
}
