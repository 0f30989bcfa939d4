/** Byte helpers the core and its hosts share. */

/** Whether two files' contents are the same: equal texts, or equal bytes (a text never equals bytes). */
export function sameContent(a: string | Uint8Array, b: string | Uint8Array): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The chunks of a stream, read in order, as one array of their total length. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const chunk of chunks) length += chunk.byteLength;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Reads a stream to its end, or stops (cancelling it) once it passes `cap` bytes: undefined then. */
export async function collectCapped(reader: ReadableStreamDefaultReader<Uint8Array>, cap: number): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return concatBytes(chunks);
}

/** A response's body, or undefined once it passes `limit` bytes (the rest is not read). */
export async function readBodyCapped(response: Response, limit: number): Promise<Uint8Array | undefined> {
  if (Number(response.headers.get('content-length') ?? NaN) > limit) return undefined;
  return response.body ? collectCapped(response.body.getReader(), limit) : new Uint8Array();
}
