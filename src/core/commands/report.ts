/** Commands whose `--json` output is a document of its own protocol (actions, agent context): the document when ok, the envelope otherwise. */
import type { CommandEnvelope } from '../diagnostics/index.ts';
import { formatEnvelope } from './format.ts';
import type { CommandHost, Invocation } from './types.ts';

/** Prints the document (`--json`) or its text; a failed run prints its envelope as any command does. */
export function printReport(invocation: Invocation, host: CommandHost, value: CommandEnvelope, document: unknown, text: () => string): void {
  const json = invocation.options.json === true;
  const output = value.ok && document !== undefined
    ? (json ? JSON.stringify(document, null, 2) : formatEnvelope(value, text()))
    : (json ? JSON.stringify(value, null, 2) : formatEnvelope(value));
  host.print?.(output);
}
