/** Base64url without padding (RFC 4648 §5): the alphabet that survives URL fragments unescaped. */

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
