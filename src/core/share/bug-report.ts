/** The Markdown of "Copy bug report": the share link, what failed (tests or diagnostics), the persona and the version. */
import type { Diagnostic } from '../diagnostics/index.ts';
import type { PersonaName } from '../runtime/index.ts';
import type { TestFailure } from '../testing/index.ts';

/** GitHub refuses an issue body over 65,536 characters; a longer link is left out with a note. */
export const MAX_REPORT_LINK_CHARS = 60_000;
/** At most this many failures or diagnostics are listed; the rest are counted. */
export const MAX_REPORT_ITEMS = 10;
/** Expected and actual values and messages are cut to this many characters. */
export const MAX_REPORT_VALUE_CHARS = 2000;

export interface BugReportInput {
  /** The full share URL (origin, path and `#v1.…` fragment). */
  link: string;
  persona: PersonaName;
  /** The playground's version (package version, build id). */
  version: string;
  /** The project's name, for the title. */
  project?: string;
  /** Failing tests (`test.case.fail` details), reported first when present. */
  failures?: readonly TestFailure[];
  /** Diagnostics (problems panel); reported when there are no failures, or as well. */
  diagnostics?: readonly Diagnostic[];
  /** What the person saw or expected, in their words. */
  note?: string;
}

function cut(text: string, max = MAX_REPORT_VALUE_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

/** A fenced block whose fence is longer than any run of backticks inside, so content cannot end it. */
function fenced(text: string, info = ''): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${info}\n${text}\n${fence}`;
}

/** Inline code that cannot be broken by backticks or line breaks in `text`. */
function code(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  const longest = Math.max(0, ...Array.from(flat.matchAll(/`+/g), (m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return longest > 0 ? `${ticks} ${flat} ${ticks}` : `${ticks}${flat}${ticks}`;
}

function where(item: Diagnostic): string {
  if (!item.file) return '';
  return `${item.file}${item.span ? `:${item.span.line}:${item.span.column}` : ''}`;
}

function failureBlock(failure: TestFailure): string {
  const lines = [`${failure.severity} ${failure.code}: ${cut(failure.message)}`];
  const at = where(failure);
  if (at) lines.push(`  at ${at}`);
  if (failure.kind) lines.push(`  kind: ${failure.kind}`);
  if (failure.matcher) lines.push(`  matcher: ${failure.matcher}`);
  if (failure.expected !== undefined) lines.push(`  expected: ${cut(failure.expected)}`);
  if (failure.actual !== undefined) lines.push(`  actual:   ${cut(failure.actual)}`);
  if (failure.hint) lines.push(`  hint: ${cut(failure.hint)}`);
  return lines.join('\n');
}

function diagnosticLine(item: Diagnostic): string {
  const at = where(item);
  const extra = [item.primary ? 'primary' : '', item.causedBy ? `caused by ${item.causedBy}` : ''].filter(Boolean).join(', ');
  return `${at ? `${at}: ` : ''}${item.severity} ${item.code}: ${cut(item.message)}${extra ? ` (${extra})` : ''}`;
}

function more(total: number, what: string): string[] {
  return total > MAX_REPORT_ITEMS ? [`…and ${total - MAX_REPORT_ITEMS} more ${what}.`] : [];
}

/**
 * The report as Markdown, ready to paste into an issue. Pure: the same input gives the same text.
 *
 * @example
 * navigator.clipboard.writeText(bugReport({ link: location.href, persona: 'bob', version: '0.1.0', failures }));
 */
export function bugReport(input: BugReportInput): string {
  const failures = input.failures ?? [];
  const diagnostics = input.diagnostics ?? [];
  const out: string[] = [];
  const subject = failures.length > 0 ? `${failures.length} failing test${failures.length === 1 ? '' : 's'}` : diagnostics.length > 0 ? diagnostics[0]!.code : 'a problem';
  out.push(`### Bug report${input.project ? `: ${code(input.project)}` : ''} (${subject})`, '');
  if (input.note && input.note.trim() !== '') out.push(cut(input.note.trim(), 5000), '');

  out.push('**Reproduce**: open the link; it makes a new project with these files' + ' and data, previewed as the same persona.', '');
  if (input.link.length <= MAX_REPORT_LINK_CHARS) out.push(`<${input.link.replace(/[<>\s]/g, encodeURIComponent)}>`, '');
  else out.push(`_The link is ${input.link.length} characters long, too long for an issue: attach the project as a zip (Download as zip) instead._`, '');

  if (failures.length > 0) {
    out.push('**Failing tests**', '');
    for (const failure of failures.slice(0, MAX_REPORT_ITEMS)) {
      out.push(`- ${failure.test ? code(failure.test) : 'a test'}`, '', fenced(failureBlock(failure), 'text'), '');
    }
    out.push(...more(failures.length, 'failing tests'));
  }
  if (diagnostics.length > 0) {
    out.push('**Diagnostics**', '');
    const listed = diagnostics.slice(0, MAX_REPORT_ITEMS).map(diagnosticLine);
    out.push(fenced([...listed, ...more(diagnostics.length, 'diagnostics')].join('\n'), 'text'), '');
  }
  if (failures.length === 0 && diagnostics.length === 0) out.push('_No failing test or diagnostic was reported._', '');

  out.push('| | |', '|---|---|', `| persona | ${code(input.persona)} |`, `| playground | ${code(input.version)} |`);
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
}
