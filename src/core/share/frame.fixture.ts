import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';

/** A link framed by an independent implementation (node:zlib, node:crypto) around any payload bytes. */
export function frame(payload: Uint8Array | string, options: { version?: string; compressed?: Uint8Array } = {}): string {
  const data = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload;
  const compressed = options.compressed ?? new Uint8Array(deflateRawSync(data));
  const header = Buffer.alloc(8);
  header.writeUInt32BE(compressed.length, 0);
  createHash('sha256').update(compressed).digest().copy(header, 4, 0, 4);
  return `${options.version ?? 'v1'}.${Buffer.concat([header, compressed]).toString('base64url')}`;
}
