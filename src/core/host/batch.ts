/**
 * Queries and mutations carried to a hosted engine together. An engine runs its calls one at a time,
 * and each request to it costs a fixed toll before the app's code runs (in the pool: the host object's
 * hop to the environment's facet, the identity's check, the body read across the hop), which a
 * busy environment paid per call. So while the control plane already has calls at an engine, the
 * next ones wait at the control plane and go on together, in one request under one signed identity
 * (kind `batch`, which no visitor's auth has; each call's own auth is in the signed body), and the
 * engine answers each with what it would have answered alone, one line each, in order, as each ends:
 * the control plane hands each answer over as its line arrives, and its watchdog counts each line as
 * a sign of life. A quiet environment's call goes alone, as before (app-engine.ts).
 *
 * Only what the engine's wire entry answers from the call alone travels this way: a POST to a query
 * or mutation's route, with a body of valid UTF-8 within BATCH_CALL_BYTES, and no live connection.
 */
import { LIVE_CONNECTION_HEADER, wireRoute } from '../../modules/wire.ts';
import type { Auth } from '../runtime/index.ts';

/** The engine's path for a batch (never forwarded from a visitor: the control plane keeps `/__platform/` for itself). */
export const BATCH_PATH = '/__platform/batch';
/** The URL a batch's identity names. */
export const BATCH_URL = `http://platform.localhost${BATCH_PATH}`;
/** The auth a batch's identity carries: its kind is none of a visitor's. */
export const BATCH_AUTH = Object.freeze({ kind: 'batch' }) as unknown as Auth;
/** The most calls one batch carries. */
export const BATCH_MAX_CALLS = 64;
/** The largest body a call may have to travel in a batch (a larger one goes alone). */
export const BATCH_CALL_BYTES = 16 * 1024;

/** One call in a batch: who calls, the URL it was asked at (its wire route), and its body as text. */
export interface BatchCall {
  auth: Auth;
  url: string;
  body: string;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/** `request` as a batch carries it, or undefined when it must go alone. */
export function batchCall(auth: Auth, request: { method: string; url: string; headers: ReadonlyArray<readonly [string, string]>; body?: Uint8Array }): BatchCall | undefined {
  if (request.method !== 'POST' || !request.body || request.body.byteLength > BATCH_CALL_BYTES) return undefined;
  let wire: ReturnType<typeof wireRoute>;
  try {
    wire = wireRoute(new URL(request.url).pathname);
    if (!wire) return undefined;
    decodeURIComponent(wire.encodedName);
  } catch {
    return undefined;
  }
  if (request.headers.some(([name]) => name.toLowerCase() === LIVE_CONNECTION_HEADER)) return undefined;
  let body: string;
  try {
    // Valid UTF-8 only: its text encodes back to the same bytes, so the engine reads the call's own body.
    body = strictUtf8.decode(request.body);
  } catch {
    return undefined;
  }
  return { auth, url: request.url, body };
}

export function encodeBatch(calls: readonly BatchCall[]): Uint8Array {
  return encoder.encode(JSON.stringify({ calls }));
}

/** The calls of a batch's body, or undefined when it is not one. */
export function decodeBatch(body: Uint8Array): BatchCall[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
  const calls = (parsed as { calls?: unknown } | null)?.calls;
  if (!Array.isArray(calls) || calls.length === 0 || calls.length > BATCH_MAX_CALLS) return undefined;
  for (const call of calls as Array<Partial<BatchCall> | null>) {
    if (!call || typeof call.auth !== 'object' || call.auth === null || typeof call.url !== 'string' || typeof call.body !== 'string') return undefined;
  }
  return calls as BatchCall[];
}

/** One call's answer as its line: status, headers and body (a wire answer's body is JSON text). */
interface Frame {
  status: number;
  headers: Array<[string, string]>;
  body: string;
}

async function frameOf(response: Response): Promise<string> {
  const frame: Frame = { status: response.status, headers: [...response.headers], body: await response.text() };
  return `${JSON.stringify(frame)}\n`;
}

/**
 * The engine's answer to a batch: a line per call, in order, each written as its call ends. `call`
 * answers one call as the wire entry would have answered it alone.
 */
export function answerBatch(calls: readonly BatchCall[], call: (one: BatchCall) => Promise<Response>): Response {
  const lines = new TransformStream<Uint8Array, Uint8Array>();
  const writer = lines.writable.getWriter();
  void (async () => {
    // A reader that has gone (the control plane's connection lost) ends the batch: the calls after it are not run.
    try {
      for (const one of calls) await writer.write(encoder.encode(await frameOf(await call(one))));
      await writer.close();
    } catch {
      await writer.abort().catch(() => undefined);
    }
  })();
  return new Response(lines.readable, { headers: { 'content-type': 'application/x-ndjson' } });
}

/**
 * The asking side's reader of a batch's answer: text as it arrives, each whole line the answer of the
 * next call (JSON escapes line breaks inside strings, so a line break ends a line).
 */
export class BatchReader {
  #rest = '';
  readonly #decoder = new TextDecoder();

  /** The answers whose lines `chunk` completes. */
  push(chunk: Uint8Array): Response[] {
    const text = this.#rest + this.#decoder.decode(chunk, { stream: true });
    const lines = text.split('\n');
    this.#rest = lines.pop()!;
    return lines.map((line) => {
      const frame = JSON.parse(line) as Frame;
      return new Response(frame.status === 204 || frame.status === 304 ? null : frame.body, { status: frame.status, headers: frame.headers });
    });
  }
}
