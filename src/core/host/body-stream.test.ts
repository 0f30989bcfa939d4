import { describe, expect, it } from 'vitest';
import { BODY_PIECE, BodySender, bodyPoster, bodyReceiver, deliverBody } from './body-stream';

/** An app body that makes `count` chunks of `size` bytes on demand, counting what it made. */
function appBody(count: number, size: number) {
  let made = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (made === count) return controller.close();
        made++;
        controller.enqueue(new Uint8Array(size).fill(made % 256));
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, made: () => made };
}

/** Sender and receiver joined as the sandbox and the host are (messages in order, asynchronously). */
function join(body: ReadableStream<Uint8Array>, window: number) {
  let sender!: BodySender;
  const sent: number[] = [];
  const receiver = bodyReceiver(
    (bytes) => queueMicrotask(() => sender.grant(bytes)),
    () => queueMicrotask(() => sender.cancel()),
  );
  sender = new BodySender(
    body.getReader(),
    {
      chunk: (bytes) => {
        sent.push(bytes.byteLength);
        queueMicrotask(() => receiver.chunk(bytes));
      },
      end: () => queueMicrotask(() => receiver.end()),
      error: (message) => queueMicrotask(() => receiver.error(new Error(message))),
    },
    window,
  );
  const done = sender.run();
  return { stream: receiver.stream, sentBytes: () => sent.reduce((a, b) => a + b, 0), done };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('a body over messages, with backpressure', () => {
  it('carries every byte, in order, cutting big chunks into pieces', async () => {
    const { stream } = join(appBody(3, BODY_PIECE * 2 + 5).stream, 1024 * 1024);
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    expect(bytes.byteLength).toBe(3 * (BODY_PIECE * 2 + 5));
    expect(bytes[0]).toBe(1);
    expect(bytes[bytes.byteLength - 1]).toBe(3);
  });

  it('sends no more than the window ahead of a reader that does not read, and goes on as it reads', async () => {
    const window = 4 * 1024;
    const app = appBody(1000, 1024);
    const joined = join(app.stream, window);
    await settle();
    // Nothing read: the window, and the app's stream was asked for no more than that.
    expect(joined.sentBytes()).toBe(window);
    expect(app.made()).toBeLessThanOrEqual(window / 1024 + 1);
    const reader = joined.stream.getReader();
    for (let i = 0; i < 10; i++) await reader.read();
    await settle();
    expect(joined.sentBytes()).toBe(window + 10 * 1024);
    await reader.cancel();
    await joined.done;
    // Cancelled: the app's stream stopped being pulled.
    const made = app.made();
    await settle();
    expect(app.made()).toBe(made);
    expect(made).toBeLessThan(1000);
  });

  it('passes an error of the app\'s stream to the reader', async () => {
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array([1]));
        controller.error(new Error('disk on fire'));
      },
    });
    const { stream } = join(failing, 1024);
    await expect(new Response(stream).arrayBuffer()).rejects.toThrow('disk on fire');
  });

  it('refuses an engine that sends past the room it was given', async () => {
    let cancelled = 0;
    const receiver = bodyReceiver(() => undefined, () => cancelled++, 1024);
    for (let i = 0; i < 100; i++) receiver.chunk(new Uint8Array(BODY_PIECE));
    await expect(new Response(receiver.stream).arrayBuffer()).rejects.toThrow('more of the body than the reader made room for');
    expect(cancelled).toBe(1);
  });
});

describe('the body messages every channel carries (bodyPoster, deliverBody)', () => {
  /** A channel without backpressure, as the preview frame's port and a preview tab's are: posted messages delivered in order, later. */
  function channel(body: ReadableStream<Uint8Array>, options: { window?: number; failAfter?: number } = {}) {
    const posted: Array<{ type: string; id: number; transfer: number }> = [];
    const bodies = new Map<number, ReturnType<typeof bodyReceiver>>();
    let sender!: BodySender;
    const receiver = bodyReceiver(() => undefined, () => queueMicrotask(() => sender.cancel()), Infinity);
    bodies.set(7, receiver);
    sender = new BodySender(
      body.getReader(),
      bodyPoster<ArrayBuffer>(
        7,
        (message, transfer) => {
          posted.push({ type: message.type, id: message.id, transfer: transfer.length });
          // What arrives is a clone: an ArrayBuffer, as structured clone delivers it.
          const arrived = message.type === 'body-chunk' ? { ...message, chunk: message.chunk.slice(0) } : message;
          queueMicrotask(() => deliverBody(bodies, arrived));
        },
        (bytes) => bytes.buffer as ArrayBuffer,
      ),
      options.window ?? Infinity,
    );
    return { posted, bodies, done: sender.run(), stream: receiver.stream };
  }

  it('carries a body in pieces of at most BODY_PIECE, each with its own buffer to transfer, then body-end, and forgets the receiver', async () => {
    const { stream } = appBody(3, BODY_PIECE * 2 + 10);
    const joined = channel(stream);
    const read = new Uint8Array(await new Response(joined.stream).arrayBuffer());
    await joined.done;
    expect(read.byteLength).toBe(3 * (BODY_PIECE * 2 + 10));
    expect(read[0]).toBe(1);
    expect(read.at(-1)).toBe(3);
    expect(joined.posted.filter((m) => m.type === 'body-chunk')).toHaveLength(9);
    expect(joined.posted.every((m) => m.id === 7 && (m.type === 'body-chunk' ? m.transfer === 1 : m.transfer === 0))).toBe(true);
    expect(joined.posted.at(-1)!.type).toBe('body-end');
    expect(joined.bodies.size).toBe(0);
  });

  it("an app body that fails reaches the reader as an error with the app's message (body-error)", async () => {
    let pulls = 0;
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulls++ === 0) return controller.enqueue(new Uint8Array([1, 2, 3]));
        controller.error(new Error('the upstream went away'));
      },
    });
    const joined = channel(failing);
    await expect(new Response(joined.stream).arrayBuffer()).rejects.toThrow('the upstream went away');
    expect(joined.posted.map((m) => m.type)).toEqual(['body-chunk', 'body-error']);
    expect(joined.bodies.size).toBe(0);
  });

  it('a reader that gives up cancels the app body at its source', async () => {
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new Uint8Array(16)),
      cancel: () => void (cancelled = true),
    });
    const joined = channel(endless);
    const reader = joined.stream.getReader();
    await reader.read();
    await reader.cancel();
    await joined.done;
    expect(cancelled).toBe(true);
  });

  it('a message for a body nobody waits for (ended, or never opened) is dropped', () => {
    const bodies = new Map<number, ReturnType<typeof bodyReceiver>>();
    expect(() => deliverBody(bodies, { type: 'body-chunk', id: 3, chunk: new Uint8Array(1) })).not.toThrow();
    expect(() => deliverBody(bodies, { type: 'body-end', id: 3 })).not.toThrow();
  });
});
