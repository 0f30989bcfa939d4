/**
 * Byte helpers the core and its hosts share, base64 among them: the core, its hosts and the control
 * plane take it from here, over the one implementation the platform's own modules ship to apps
 * (modules/wire.ts).
 */
import { base64ToBytes, bytesToBase64 } from '../modules/wire.ts';

/** Whether two files' contents are the same: equal texts, or equal bytes (a text never equals bytes). */
export function sameContent(a: string | Uint8Array, b: string | Uint8Array): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return sameBytes(a, b);
}

/** Whether two byte arrays hold the same bytes: four at a time where both are aligned (a bundle of megabytes is compared on each build). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  const length = a.byteLength;
  if (length !== b.byteLength) return false;
  let i = 0;
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0) {
    const words = length >>> 2;
    const wa = new Uint32Array(a.buffer, a.byteOffset, words);
    const wb = new Uint32Array(b.buffer, b.byteOffset, words);
    for (let w = 0; w < words; w++) if (wa[w] !== wb[w]) return false;
    i = words * 4;
  }
  for (; i < length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether two projects' files are the same: the same paths, each with the same content. */
export function sameFiles(a: Readonly<Record<string, string | Uint8Array>>, b: Readonly<Record<string, string | Uint8Array>>): boolean {
  const paths = Object.keys(a);
  if (paths.length !== Object.keys(b).length) return false;
  return paths.every((path) => b[path] !== undefined && sameContent(a[path]!, b[path]!));
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

// Base64 (RFC 4648 §4) of bytes and back: the wire format's (modules/wire.ts, which apps load too), one
// implementation over the web's btoa/atob (present in Node, browsers and workers).

/** Base64 of bytes. */
export const encodeBase64: (bytes: Uint8Array) => string = bytesToBase64;

/** The bytes of a base64 string, or undefined when it is not base64. */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  return base64ToBytes(text);
}

// Base64url without padding (RFC 4648 §5): the alphabet that survives URLs and URL fragments unescaped
// (share links, cursors, key proofs).

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const VALUES = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

export function encodeBase64url(bytes: Uint8Array): string {
  const parts: string[] = [];
  let chunk = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    chunk += ALPHABET[a >> 2]! + ALPHABET[((a & 3) << 4) | ((b ?? 0) >> 4)]!;
    if (b !== undefined) chunk += ALPHABET[((b & 15) << 2) | ((c ?? 0) >> 6)]!;
    if (c !== undefined) chunk += ALPHABET[c & 63]!;
    if (chunk.length >= 8192) {
      parts.push(chunk);
      chunk = '';
    }
  }
  parts.push(chunk);
  return parts.join('');
}

/**
 * Bytes of base64url text (no padding). `invalid` for a character outside the alphabet; `truncated`
 * for a length no encoder produces (4n + 1 characters). Leftover bits of a last partial group are
 * ignored: a link cut anywhere must read as cut off, not as damaged.
 */
export function decodeBase64url(text: string): Uint8Array | 'invalid' | 'truncated' {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128 || VALUES[code]! < 0) return 'invalid';
  }
  if (text.length % 4 === 1) return 'truncated';
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const a = VALUES[text.charCodeAt(i)]!;
    const b = VALUES[text.charCodeAt(i + 1)]!;
    const c = i + 2 < text.length ? VALUES[text.charCodeAt(i + 2)]! : -1;
    const d = i + 3 < text.length ? VALUES[text.charCodeAt(i + 3)]! : -1;
    out[o++] = (a << 2) | (b >> 4);
    if (c >= 0) out[o++] = ((b & 15) << 4) | (c >> 2);
    if (d >= 0) out[o++] = ((c & 3) << 6) | d;
  }
  return out;
}
