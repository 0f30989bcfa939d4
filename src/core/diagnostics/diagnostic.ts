/** The diagnostic value every analysis returns: code, severity, message, location, hint, attribution. */
import { catalogue, type DiagnosticCode, type Severity } from './catalogue.ts';

/** A location in a file. Lines and columns are 1-based; columns count UTF-16 code units. */
export interface Span {
  line: number;
  column: number;
  length?: number;
}

export interface Diagnostic {
  code: DiagnosticCode;
  severity: Severity;
  /** Human wording; may change between versions. Dispatch on `code`, never on this. */
  message: string;
  /** Project-relative POSIX path. */
  file?: string;
  span?: Span;
  /** A suggested edit. */
  hint?: string;
  /** This diagnostic broke the generated contract: repair it first. */
  primary?: true;
  /** This diagnostic is a consequence of a diagnostic with that code. */
  causedBy?: DiagnosticCode;
  /** Structured facts for codes that carry them (for example DG1824's `detail.code`). */
  detail?: Record<string, unknown>;
}

export type DiagnosticInit = Omit<Diagnostic, 'code' | 'severity' | 'message'> & { severity?: Severity };

/** Makes a diagnostic whose severity comes from the catalogue unless given. */
export function diagnostic(code: DiagnosticCode, message: string, init: DiagnosticInit = {}): Diagnostic {
  const { severity, ...rest } = init;
  const result: Diagnostic = { code, severity: severity ?? catalogue[code].severity, message };
  for (const [key, value] of Object.entries(rest)) {
    if (value !== undefined) (result as unknown as Record<string, unknown>)[key] = value;
  }
  return result;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/**
 * The order diagnostics are reported in: primaries first (the spec's repair order), then consequences
 * last, and within each group by file, line and column. Stable for diagnostics that compare equal.
 */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const rank = (d: Diagnostic) => (d.primary ? 0 : d.causedBy ? 2 : 1);
  return diagnostics
    .map((d, index) => ({ d, index }))
    .sort((a, b) => {
      return (
        rank(a.d) - rank(b.d) ||
        (a.d.file ?? '').localeCompare(b.d.file ?? '') ||
        (a.d.span?.line ?? 0) - (b.d.span?.line ?? 0) ||
        (a.d.span?.column ?? 0) - (b.d.span?.column ?? 0) ||
        a.index - b.index
      );
    })
    .map(({ d }) => d);
}
