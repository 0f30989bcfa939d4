/** How a call ended, as the runtime and its hosts report it; a failure always has an errorId. */
import { randomId, systemClock, type RuntimeClock } from './clock.ts';
import type { LogLine } from './console-capture.ts';
import type { RuntimeErrorInfo, TableSet } from '../../modules/types.ts';

export type { RuntimeErrorInfo, TableSet };

export interface CallOutcome {
  status: number;
  /** The handler's result, when the call succeeded (undefined when the handler returned nothing). */
  result?: unknown;
  error?: RuntimeErrorInfo;
  headers?: Record<string, string>;
  /** What the call wrote (a mutation's tables and the store), for live refresh of other clients. */
  wrote: TableSet;
  /** What a query or mutation read (which tables and whether the store), for live refresh of the queries that depend on it. */
  read?: TableSet;
  /** What the handler wrote with `console`, when the runtime captures it (console-capture.ts). */
  logs?: LogLine[];
  /** A failure's thrown error's stack frames (`thrownFrames`): for the owner's report, never part of the answer. */
  stack?: string;
}

/** A failed call with a fresh errorId (`err_` + 26 base32 characters). */
export function failedCall(status: number, code: string, message: string, clock: RuntimeClock = systemClock, headers?: Record<string, string>): CallOutcome {
  return { status, error: { code, message, errorId: `err_${randomId(clock)}` }, ...(headers ? { headers } : {}), wrote: { tables: [], storage: false } };
}

/** What a call's answer says when its handler ran past the deadline, in every host's words. */
export function deadlineMessage(deadlineMs: number): string {
  return `The handler did not finish within its deadline of ${deadlineMs} ms.`;
}

/**
 * 504 `handler_deadline_exceeded`: the answer of a call whose handler ran past its deadline, whether the
 * runtime's timer caught it (a handler that waits) or the host's watchdog ended the engine (a handler
 * that spins): hosting's and dev's app engines and `platform test`'s engines answer it alike.
 */
export function deadlineExceeded(deadlineMs: number, clock: RuntimeClock = systemClock): CallOutcome {
  return failedCall(504, 'handler_deadline_exceeded', deadlineMessage(deadlineMs), clock);
}
