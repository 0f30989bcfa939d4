/** Turns a fixture's expected diagnostics (located by marker text) into code-and-span records to compare. */
import type { Diagnostic } from '../../diagnostics';
import { LineIndex } from '../../text';
import type { Expected } from './cases';

export interface Located {
  code: string;
  line?: number;
  column?: number;
  length?: number;
}

export function locate(expected: Expected, text: string): Located {
  if (expected.at === undefined) return { code: expected.code };
  let offset = expected.after === undefined ? -1 : text.indexOf(expected.after);
  if (offset < 0 && expected.after !== undefined) throw new Error(`Context ${JSON.stringify(expected.after)} is not in the manifest`);
  for (let n = 0; n < (expected.nth ?? 1); n++) {
    offset = text.indexOf(expected.at, offset + 1);
    if (offset < 0) throw new Error(`Marker ${JSON.stringify(expected.at)} (occurrence ${expected.nth ?? 1}) is not in the manifest`);
  }
  const span = new LineIndex(text).span(offset, expected.at.length);
  return expected.startOnly ? { code: expected.code, line: span.line, column: span.column } : { code: expected.code, line: span.line, column: span.column, length: span.length };
}

export function project(d: Diagnostic, startOnly: boolean): Located {
  if (!d.span) return { code: d.code };
  return startOnly ? { code: d.code, line: d.span.line, column: d.span.column } : { code: d.code, line: d.span.line, column: d.span.column, length: d.span.length };
}

const order = (a: Located, b: Located) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0) || a.code.localeCompare(b.code);

/** The actual diagnostics projected the way each expectation asks, both sorted by position. */
export function compare(expected: Expected[], actual: Diagnostic[], text: string): { want: Located[]; got: Located[] } {
  const want = expected.map((e) => locate(e, text)).sort(order);
  const startOnly = new Set(expected.filter((e) => e.startOnly).map((e) => `${locate(e, text).line}:${locate(e, text).column}`));
  const got = actual.map((d) => project(d, startOnly.has(`${d.span?.line}:${d.span?.column}`))).sort(order);
  return { want, got };
}
