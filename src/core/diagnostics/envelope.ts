/** The `platform.command.v0` envelope every command prints with `--json`, and the exit status it maps to. */
import { hasErrors, sortDiagnostics, type Diagnostic } from './diagnostic.ts';

export const COMMAND_PROTOCOL = 'platform.command.v0';

export interface CommandEnvelope<Result = unknown> {
  protocol: typeof COMMAND_PROTOCOL;
  command: string;
  /** True when no diagnostic has severity `error`. */
  ok: boolean;
  diagnostics: Diagnostic[];
  /** What the command produced, when it produces something beyond diagnostics. */
  result?: Result;
}

export function envelope<Result>(command: string, diagnostics: readonly Diagnostic[], result?: Result): CommandEnvelope<Result> {
  const sorted = sortDiagnostics(diagnostics);
  const value: CommandEnvelope<Result> = { protocol: COMMAND_PROTOCOL, command, ok: !hasErrors(sorted), diagnostics: sorted };
  if (result !== undefined) value.result = result;
  return value;
}

/** 2 for a bad invocation (DG0001, DG0002), 0 when `ok`, 1 when the command reported errors. */
export function exitStatus(value: Pick<CommandEnvelope, 'ok' | 'diagnostics'>): 0 | 1 | 2 {
  if (value.diagnostics.some((d) => d.code === 'DG0001' || d.code === 'DG0002')) return 2;
  return value.ok ? 0 : 1;
}
