/**
 * A request body read straight from Node's IncomingMessage, counted as it arrives: what the hosted
 * path reads when the control plane runs over HTTP, instead of the body as a web stream (which makes
 * Hono's Node server build a whole web Request, and a stream over the message, for every request).
 * The limit holds the same way as `readLimited`: past it the reading fails with BodyTooLargeError,
 * having held at most `limit` bytes, and the rest is not read (the message is paused).
 */
import type { IncomingMessage } from 'node:http';
import { BodyTooLargeError } from './body-limit';

/** Reads a whole body of at most `limit` bytes from `incoming`; throws BodyTooLargeError past it. */
export function readIncoming(incoming: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise<Uint8Array>((resolve, reject) => {
    if (incoming.destroyed || incoming.readableDidRead) return reject(new Error('The request body was already read or the connection is closed.'));
    const chunks: Buffer[] = [];
    let seen = 0;
    let settled = false;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
      settle();
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      seen += bytes.byteLength;
      if (seen > limit) {
        // Not destroyed: the 413 is still to be written. The server drains or closes what is left.
        incoming.pause();
        chunks.length = 0;
        finish(() => reject(new BodyTooLargeError(limit)));
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = () => finish(() => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    const onError = (error: Error) => finish(() => reject(error));
    const onClose = () => {
      if (incoming.readableEnded) onEnd();
      else finish(() => reject(new Error('The client closed the connection before its request body ended.')));
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}
