/**
 * Runtime errors that carry their own HTTP status and code (unique_violation, request_too_large, …).
 * Errors cross realms by brand, not instanceof: a fault thrown in a worker is recognised anywhere.
 * Every other error thrown while a handler runs is an ordinary failure: 400 operation_failed from a
 * query or mutation, 500 endpoint_failed from an endpoint, with the error's message.
 */

const BRAND = Symbol.for('platform.RuntimeFault');

export type FaultCode =
  | 'operation_failed'
  | 'endpoint_failed'
  | 'handler_deadline_exceeded'
  | 'request_too_large'
  | 'response_too_large'
  | 'stream_not_admitted'
  | 'stream_connection_budget_exceeded'
  | 'unique_violation'
  | 'storage_quota_exceeded'
  | 'not_found';

export interface RuntimeFault extends Error {
  readonly [BRAND]: true;
  readonly code: FaultCode;
  /** The HTTP status, or undefined when it depends on the surface (query/mutation 400, endpoint 500). */
  readonly status?: number;
  /** Extra response headers (Retry-After). */
  readonly headers?: Record<string, string>;
}

export function fault(code: FaultCode, message: string, status?: number, headers?: Record<string, string>): RuntimeFault {
  const error = new Error(message) as Error & { [BRAND]: true; code: FaultCode; status?: number; headers?: Record<string, string> };
  error[BRAND] = true;
  error.code = code;
  if (status !== undefined) error.status = status;
  if (headers) error.headers = headers;
  return error;
}

export function isRuntimeFault(value: unknown): value is RuntimeFault {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}
