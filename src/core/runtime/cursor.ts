/**
 * Opaque, tamper-proof cursors: a position serialized, then signed with HMAC-SHA-256 under a secret
 * the runtime holds. A token the runtime did not issue, or one that was edited, does not verify.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { decodeBase64url, encodeBase64url } from '../bytes.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const TAG_BYTES = 16;

export class CursorSigner {
  readonly #secret: Uint8Array;

  /** `secret` should be random per runtime (per app and environment when hosted). */
  constructor(secret: Uint8Array) {
    this.#secret = secret;
  }

  /** Signs a JSON-serializable position into an opaque token. `purpose` binds it to one use (a table, a listing). */
  sign(purpose: string, position: unknown): string {
    const body = encoder.encode(JSON.stringify(position));
    const tag = hmac(sha256, this.#secret, new Uint8Array([...encoder.encode(purpose), 0, ...body])).slice(0, TAG_BYTES);
    return encodeBase64url(new Uint8Array([...tag, ...body]));
  }

  /** The position of a token this signer issued for `purpose`; undefined for anything else. */
  verify(purpose: string, token: unknown): unknown {
    if (typeof token !== 'string' || token.length > 4096) return undefined;
    const bytes = decodeBase64url(token);
    if (!(bytes instanceof Uint8Array) || bytes.length <= TAG_BYTES) return undefined;
    const tag = bytes.slice(0, TAG_BYTES);
    const body = bytes.slice(TAG_BYTES);
    const expected = hmac(sha256, this.#secret, new Uint8Array([...encoder.encode(purpose), 0, ...body])).slice(0, TAG_BYTES);
    let difference = 0;
    for (let i = 0; i < TAG_BYTES; i++) difference |= tag[i]! ^ expected[i]!;
    if (difference !== 0) return undefined;
    try {
      return JSON.parse(decoder.decode(body)) as unknown;
    } catch {
      return undefined;
    }
  }
}
