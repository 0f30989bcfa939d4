/** The bottom panels: problems grouped by file (primaries first), and the platform.dev.v0 event log. */
import type { Diagnostic } from '../../core/diagnostics';
import { DiagnosticList } from '../diagnostic-list';
import type { SessionEvent } from './project-session';

/** `checked`: whether the type check of the current files ran; until it has, no list says "no problems". */
export function ProblemsPanel({ diagnostics, checked = true, onSelect }: { diagnostics: Diagnostic[]; checked?: boolean; onSelect(d: Diagnostic): void }) {
  const groups = new Map<string, Diagnostic[]>();
  for (const d of diagnostics) {
    const key = d.file ?? '(project)';
    groups.set(key, [...(groups.get(key) ?? []), d]);
  }
  const checking = !checked && (
    <p class="checking" role="status" data-testid="problems-checking">
      Checking…
    </p>
  );
  if (diagnostics.length === 0) return checking || <DiagnosticList diagnostics={[]} onSelect={onSelect} />;
  return (
    <div class="problems">
      {checking}
      {[...groups].map(([file, list]) => (
        <section key={file} aria-label={file}>
          <h3 class="problem-file">{file}</h3>
          <DiagnosticList diagnostics={list} onSelect={onSelect} />
        </section>
      ))}
    </div>
  );
}

function describe(event: SessionEvent): string {
  switch (event.kind) {
    case 'runtime.call':
      return `${event.persona} ${event.operation} → ${event.status} (${event.durationMs.toFixed(1)} ms)`;
    case 'compile.diagnostic':
    case 'test.case.fail':
      return `${event.code} ${event.message}`;
    case 'runtime.error':
      return `${event.persona} ${event.operation} → ${event.code}: ${event.message}${event.file ? ` at ${event.file}:${String(event.line)}` : ''}`;
    default: {
      const { protocol: _p, kind: _k, at: _a, ...rest } = event;
      return Object.entries(rest)
        .filter(([, v]) => !(Array.isArray(v) && v.length === 0))
        .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
        .join(' ');
    }
  }
}

export function EventsPanel({ events }: { events: SessionEvent[] }) {
  return (
    // A scrolling list of text only: focusable, so the keyboard can scroll it (axe: scrollable-region-focusable).
    <ol class="events" aria-label="Events" reversed tabIndex={0}>
      {[...events].reverse().map((event, i) => (
        <li key={`${event.at}-${i}`} data-kind={event.kind}>
          <time>{new Date(event.at).toLocaleTimeString()}</time>
          <code>{event.kind}</code>
          <span>{describe(event)}</span>
        </li>
      ))}
    </ol>
  );
}
