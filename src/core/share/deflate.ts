/**
 * Raw DEFLATE through the web platform's CompressionStream and DecompressionStream (browsers, workers,
 * Node 20), with decompression bounded: output is read as a stream and abandoned past a byte cap, so a
 * small hostile input cannot expand into gigabytes (a "zip bomb").
 */
import { collectCapped } from '../bytes.ts';

/** Input is fed to the decompressor in pieces this size, so one piece can expand to a few MiB at most. */
const FEED = 4096;

function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + FEED));
      offset += FEED;
    },
  });
}

async function collect(reader: ReadableStreamDefaultReader<Uint8Array>, cap: number): Promise<Uint8Array | 'too_large'> {
  return (await collectCapped(reader, cap)) ?? 'too_large';
}

export async function deflateRaw(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = streamOf(bytes).pipeThrough(new CompressionStream('deflate-raw') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>);
  const result = await collect(stream.getReader(), Number.MAX_SAFE_INTEGER);
  return result as Uint8Array;
}

/** Inflates raw DEFLATE: the bytes, `too_large` past `cap` output bytes, or `corrupt` for a bad stream. */
export async function inflateRaw(bytes: Uint8Array, cap: number): Promise<Uint8Array | 'too_large' | 'corrupt'> {
  try {
    const stream = streamOf(bytes).pipeThrough(new DecompressionStream('deflate-raw') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>);
    return await collect(stream.getReader(), cap);
  } catch {
    return 'corrupt';
  }
}
