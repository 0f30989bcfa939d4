/** Human-readable output: one line per diagnostic with file:line:column, its hint beneath, then a summary. */
import type { CommandEnvelope, Diagnostic } from '../diagnostics/index.ts';

export function formatDiagnostic(d: Diagnostic): string {
  const location = d.file ? `${d.file}${d.span ? `:${d.span.line}:${d.span.column}` : ''}: ` : '';
  const attribution = d.primary ? ' [fix first]' : d.causedBy ? ` [caused by ${d.causedBy}]` : '';
  const lines = [`${location}${d.severity} ${d.code}: ${d.message}${attribution}`];
  if (d.hint) lines.push(`  hint: ${d.hint}`);
  return lines.join('\n');
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The whole text of an envelope: diagnostics, the command's own text, and a summary line when something was reported. */
export function formatEnvelope(value: CommandEnvelope, body = ''): string {
  const parts = value.diagnostics.map(formatDiagnostic);
  if (body) parts.push(body);
  const errors = value.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = value.diagnostics.filter((d) => d.severity === 'warning').length;
  if (errors || warnings) parts.push(`${errors ? '✗' : '!'} ${value.command}: ${count(errors, 'error')}, ${count(warnings, 'warning')}`);
  return parts.join('\n');
}
