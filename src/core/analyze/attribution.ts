/**
 * Repair order: server errors that break the generated contract are `primary`; the client and test
 * type errors they cause carry `causedBy`. Which consumer errors the contract caused is measured, not
 * guessed: they are the ones that disappear when the client and tests are checked against a
 * permissive contract (any result; any operation name too when the definition itself is refused,
 * so the calls of an operation it renamed are consequences: generateAppTypes' 'open' contract).
 */
import type { Diagnostic } from '../diagnostics/index.ts';
import { within, type BrokenResult } from './broken-results.ts';

const at = (d: Diagnostic) => `${d.file}:${d.span?.line}:${d.span?.column}`;

/** The definition's own refusals (DG1300 to DG1304): the operations it names cannot all be known. */
export const isDefinitionError = (d: Diagnostic): boolean => /^DG130[0-4]$/.test(d.code);

/** Server diagnostics that can break the contract: the definition's (DG1300 to DG1304) and the server zone's type errors. */
export function contractBreakers(diagnostics: readonly Diagnostic[], serverFiles: ReadonlySet<string>): Diagnostic[] {
  return diagnostics.filter((d) => d.severity === 'error' && d.file !== undefined && serverFiles.has(d.file) && (isDefinitionError(d) || d.code === 'DG1205'));
}

/**
 * Marks primaries and consequences. `permissive` holds the locations of the consumer errors that remain
 * under a permissive contract; every other consumer type error was caused by the contract. `broken`
 * are the operations whose result type a type error broke.
 */
export function attribute(diagnostics: Diagnostic[], serverFiles: ReadonlySet<string>, consumerFiles: ReadonlySet<string>, permissive: ReadonlySet<string>, broken: readonly BrokenResult[] = []): void {
  const breakers = contractBreakers(diagnostics, serverFiles);
  const consequences = diagnostics.filter((d) => d.code === 'DG1205' && d.file !== undefined && consumerFiles.has(d.file) && !permissive.has(at(d)));
  // The definition's own errors always change the contract. A server type error does when it broke an
  // operation's result type (the errors in that handler; all of them when the handler holds none), and
  // every server type error counts when consumers broke.
  const definition = breakers.filter(isDefinitionError);
  const inBrokenHandlers = breakers.filter((d) => broken.some((b) => within(b, d.file, d.span)));
  const resultBreakers = broken.length === 0 ? [] : inBrokenHandlers.length ? inBrokenHandlers : breakers;
  const primaries = definition.length ? definition : consequences.length ? breakers : resultBreakers;
  if (primaries.length === 0) return;
  for (const d of primaries) d.primary = true;
  if (consequences.length === 0) return;
  const cause = [...primaries].sort((a, b) => (a.span?.line ?? 0) - (b.span?.line ?? 0) || (a.span?.column ?? 0) - (b.span?.column ?? 0))[0]!.code;
  for (const d of consequences) d.causedBy = cause;
}

export { at as locationKey };
