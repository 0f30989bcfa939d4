/** Request bodies counted as they stream: past a limit the reading fails (413), without ever holding more than the limit. */
import type { MiddlewareHandler } from 'hono';
import { concatBytes } from '../core/bytes';

/** What reading a limited body throws once more than `limit` bytes arrived (or `Content-Length` declares more). */
export class BodyTooLargeError extends Error {
  readonly limit: number;

  constructor(limit: number) {
    super(`The request body is larger than ${limit} bytes.`);
    this.name = 'BodyTooLargeError';
    this.limit = limit;
  }
}

/**
 * A stream of the same bytes that fails with BodyTooLargeError once more than `limit` bytes went
 * through. It reads from the source only when its reader asks (one chunk at a time), so a slow or
 * absent reader holds the sender back instead of buffering; past the limit it stops reading.
 */
export function countedStream(source: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let seen = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        seen += value.byteLength;
        if (seen > limit) {
          // Not cancelled: cancelling the source ends the connection before the 413 is written. The
          // server (Node) drains or closes what is left once the answer is out.
          reader.releaseLock();
          return controller.error(new BodyTooLargeError(limit));
        }
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** True when the request's `Content-Length` already declares more than `limit` bytes. */
export function declaresMoreThan(request: Request, limit: number): boolean {
  const declared = request.headers.get('content-length');
  return declared !== null && /^[0-9]+$/.test(declared.trim()) && Number(declared) > limit;
}

/**
 * The same request with its body counted as it streams (see `countedStream`). Throws
 * BodyTooLargeError at once when `Content-Length` declares more than `limit`.
 */
export function limitRequest(request: Request, limit: number): Request {
  if (declaresMoreThan(request, limit)) throw new BodyTooLargeError(limit);
  if (!request.body) return request;
  return new Request(request, { body: countedStream(request.body, limit), duplex: 'half' } as RequestInit);
}

/** Reads a whole body of at most `limit` bytes; throws BodyTooLargeError past it. */
export async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  if (declaresMoreThan(request, limit)) throw new BodyTooLargeError(limit);
  if (!request.body) return new Uint8Array(0);
  const reader = countedStream(request.body, limit).getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return concatBytes(chunks);
}

export interface BodyLimitOptions {
  /** The most bytes a request's body may have on the routes the middleware covers (may depend on the request). */
  limit: number | ((request: Request) => number);
  /** The answer past the limit (a 413). */
  tooLarge: (limit: number) => Response;
  /**
   * Read the whole body before the handler runs (so a route that ignores its body still answers 413
   * past the limit). Meant for small limits; a large body is better counted as the handler reads it,
   * after it checked who is asking.
   */
  eager?: boolean | ((request: Request) => boolean);
}

/**
 * Hono middleware: every request under it has its body counted as it streams (`c.req.raw` is
 * replaced by `limitRequest`, or by the body read in full with `eager`), and a BodyTooLargeError thrown while a handler reads it is answered
 * with `tooLarge`. An answer past the limit asks the client to close the connection, so the rest of a
 * huge body is not read.
 */
export function bodyLimit(options: BodyLimitOptions): MiddlewareHandler {
  return async (c, next) => {
    const limit = typeof options.limit === 'number' ? options.limit : options.limit(c.req.raw);
    const refuse = () => {
      const answer = options.tooLarge(limit);
      answer.headers.set('connection', 'close');
      return answer;
    };
    if (declaresMoreThan(c.req.raw, limit)) return refuse();
    if (c.req.raw.body) {
      const eager = typeof options.eager === 'function' ? options.eager(c.req.raw) : options.eager;
      if (eager) {
        let bytes: Uint8Array;
        try {
          bytes = await readLimited(c.req.raw, limit);
        } catch (error) {
          if (error instanceof BodyTooLargeError) return refuse();
          throw error;
        }
        c.req.raw = new Request(c.req.raw, { body: bytes as BodyInit });
      } else {
        c.req.raw = limitRequest(c.req.raw, limit);
      }
    }
    await next();
    if (c.error instanceof BodyTooLargeError) {
      c.res = undefined;
      c.res = refuse();
      c.error = undefined;
    }
  };
}
