import { describe, expect, it } from 'vitest';
import { BODY_PIECE, BodySender, bodyReceiver } from './body-stream';

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
