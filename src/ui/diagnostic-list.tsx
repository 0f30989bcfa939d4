/** A list of diagnostics: code, location and message, the hint beneath, and the catalogue's repair text on demand. */
import { useState } from 'preact/hooks';
import { catalogue, type Diagnostic } from '../core/diagnostics';
import { RichText } from './rich-text';

/**
 * The problems to list: DG1602 ("the rebuild failed; the previous generation is still serving") is the
 * state of the build, shown in the status bar, not a problem above the real ones. Alone (the compiler
 * itself failed) it is the only thing to say, so it stays.
 */
export function problemsOf(diagnostics: Diagnostic[]): Diagnostic[] {
  const real = diagnostics.filter((d) => d.code !== 'DG1602');
  return real.length ? real : diagnostics;
}

export function DiagnosticList({ diagnostics, onSelect }: { diagnostics: Diagnostic[]; onSelect(d: Diagnostic): void }) {
  const [explained, setExplained] = useState<string | undefined>();
  if (diagnostics.length === 0) {
    return (
      <p class="all-clear" data-testid="all-clear">
        ✓ No problems found.
      </p>
    );
  }
  return (
    <ul class="diagnostics" aria-label="Diagnostics">
      {diagnostics.map((d, i) => {
        const key = `${i}:${d.code}`;
        const location = d.span ? `${d.file ?? ''}:${d.span.line}:${d.span.column}` : (d.file ?? '');
        return (
          <li key={key} class={`diagnostic ${d.severity}`} data-code={d.code}>
            <button type="button" class="diagnostic-main" onClick={() => onSelect(d)} title="Show in the editor">
              <span class="code">{d.code}</span>
              <span class="location">{location}</span>
              <span class="message">{d.message}</span>
            </button>
            {d.hint && (
              <p class="hint">
                <RichText text={d.hint} />
              </p>
            )}
            <button type="button" class="explain" aria-expanded={explained === key} onClick={() => setExplained(explained === key ? undefined : key)}>
              {explained === key ? 'Hide repair' : 'How to fix'}
            </button>
            {explained === key && (
              <p class="repair">
                <strong>{catalogue[d.code].title}.</strong> <RichText text={catalogue[d.code].repair} />
              </p>
            )}
          </li>
        );
      })}
    </ul>
  );
}
