/**
 * A response body carried over messages, after its head: the one vocabulary (`body-chunk`, `body-end`,
 * `body-error`, by request id) and the one sender and receiver of every channel that carries one (the
 * runtime worker's port, the preview frame's port, a preview tab's BroadcastChannel). The preview
 * frame's bootstrap, a script in a string inside the sandboxed frame, reads the same three messages
 * with its own few lines (src/ui/preview/bootstrap.ts).
 *
 * Over the runtime worker's port it goes with backpressure: the
 * engine sends chunks only while the host has room for them. The host grants bytes as its reader takes
 * chunks; the engine starts with `BODY_WINDOW` bytes of credit and reads the app's stream only while it
 * has credit left, so a slow reader slows the app's stream instead of filling the host's memory. HTTP
 * engines (workerd) get the same from TCP and need none of this.
 *
 * Bounds: the host holds at most `BODY_WINDOW` + `BODY_PIECE` unread bytes of one body; the engine
 * holds what the app's stream already made plus one piece.
 */
import { describeError } from './describe.ts';

/** Bytes the engine may send before the host has read any. */
export const BODY_WINDOW = 1024 * 1024;
/** The largest message: a bigger chunk from the app is sent in pieces of this size. */
export const BODY_PIECE = 64 * 1024;

/** The messages that carry a body after its head; `Chunk` is what the channel transfers (bytes, or their buffer). */
export type BodyMessage<Chunk = Uint8Array> =
  | { type: 'body-chunk'; id: number; chunk: Chunk }
  | { type: 'body-end'; id: number }
  | { type: 'body-error'; id: number; message: string };

/**
 * A `BodyOut` that posts request `id`'s body as messages: `post` sends one (and the chunk's buffer to
 * transfer); `wrap` turns a piece's bytes into the channel's chunk (default: the bytes themselves).
 */
export function bodyPoster<Chunk = Uint8Array>(id: number, post: (message: BodyMessage<Chunk>, transfer: ArrayBuffer[]) => void, wrap: (bytes: Uint8Array) => Chunk = (bytes) => bytes as Chunk): BodyOut {
  return {
    // Each piece is a copy of its own (BodySender), so its buffer can be transferred.
    chunk: (bytes) => post({ type: 'body-chunk', id, chunk: wrap(bytes) }, [bytes.buffer as ArrayBuffer]),
    end: () => post({ type: 'body-end', id }, []),
    error: (message) => post({ type: 'body-error', id, message }, []),
  };
}

/** Hands a body message to its request's receiver, which is forgotten once its body ended. */
export function deliverBody(bodies: Map<number, BodyIn>, message: BodyMessage<Uint8Array | ArrayBuffer>): void {
  const body = bodies.get(message.id);
  if (!body) return;
  if (message.type === 'body-chunk') return body.chunk(message.chunk instanceof Uint8Array ? message.chunk : new Uint8Array(message.chunk));
  bodies.delete(message.id);
  if (message.type === 'body-end') body.end();
  else body.error(new Error(message.message));
}

export interface BodyOut {
  chunk(bytes: Uint8Array): void;
  end(): void;
  error(message: string): void;
}

/** The engine's side: pumps the app's body out as the host grants room for it. */
export class BodySender {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #out: BodyOut;
  #credit: number;
  #cancelled = false;
  #wake: (() => void) | undefined;

  /** `window`: the bytes sent before the reader takes any (Infinity where the channel needs no backpressure). */
  constructor(reader: ReadableStreamDefaultReader<Uint8Array>, out: BodyOut, window = BODY_WINDOW) {
    this.#reader = reader;
    this.#out = out;
    this.#credit = window;
  }

  /** The host read `bytes` more: that much room again. */
  grant(bytes: number): void {
    if (!Number.isFinite(bytes) || bytes <= 0) return;
    this.#credit += bytes;
    this.#resume();
  }

  /** The host stopped reading: the app's stream is cancelled and nothing more is sent. */
  cancel(): void {
    this.#cancelled = true;
    this.#resume();
    this.#reader.cancel().catch(() => undefined);
  }

  #resume(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Runs until the body ends, fails or is cancelled. */
  async run(): Promise<void> {
    try {
      for (;;) {
        while (this.#credit <= 0 && !this.#cancelled) await new Promise<void>((resolve) => (this.#wake = resolve));
        if (this.#cancelled) return;
        const { done, value } = await this.#reader.read();
        if (this.#cancelled) return;
        if (done) break;
        const bytes = value instanceof Uint8Array ? value : new Uint8Array(value as ArrayBufferLike);
        for (let at = 0; at < bytes.byteLength; at += BODY_PIECE) {
          // A copy: a transfer of the app's own buffer would detach it under the app.
          const piece = bytes.slice(at, at + BODY_PIECE);
          this.#credit -= piece.byteLength;
          this.#out.chunk(piece);
        }
      }
      this.#out.end();
    } catch (error) {
      if (!this.#cancelled) this.#out.error(describeError(error));
    }
  }
}

export interface BodyIn {
  /** The response body the host's reader sees. */
  stream: ReadableStream<Uint8Array>;
  chunk(bytes: Uint8Array): void;
  end(): void;
  error(error: Error): void;
}

/**
 * The host's side: a stream that hands the engine's chunks to its reader one read at a time, granting
 * the engine each chunk's bytes as the reader takes it. `cancel` is called when the reader gives up,
 * or when the engine sends more than it was granted (the engine runs a stranger's code).
 */
export function bodyReceiver(grant: (bytes: number) => void, cancel: () => void, window = BODY_WINDOW): BodyIn {
  const buffered: Uint8Array[] = [];
  /** Bytes received and not yet handed to the reader. */
  let unread = 0;
  let ended = false;
  let failed: Error | undefined;
  let waiting: (() => void) | undefined;
  const wake = () => {
    const resolve = waiting;
    waiting = undefined;
    resolve?.();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (buffered.length === 0 && !ended && !failed) await new Promise<void>((resolve) => (waiting = resolve));
        const next = buffered.shift();
        if (next) {
          unread -= next.byteLength;
          controller.enqueue(next);
          grant(next.byteLength);
        } else if (failed) controller.error(failed);
        else controller.close();
      },
      cancel() {
        ended = true;
        buffered.length = 0;
        cancel();
      },
    },
    // Nothing is read ahead of the reader: the engine's window is the only buffer.
    { highWaterMark: 0 },
  );
  return {
    stream,
    chunk(bytes) {
      if (ended || failed) return;
      unread += bytes.byteLength;
      if (unread > window + BODY_PIECE) {
        failed = new Error(`The runtime sent more of the body than the reader made room for (${window} bytes ahead).`);
        buffered.length = 0;
        cancel();
      } else {
        buffered.push(bytes);
      }
      wake();
    },
    end() {
      ended = true;
      wake();
    },
    error(error) {
      failed = error;
      wake();
    },
  };
}
