/**
 * The identity a host hands to a hosted app's isolate with each request: the caller's `Auth`, the
 * request's public URL, its method, the SHA-256 of its body and a sequence number, in a header signed
 * with HMAC-SHA-256 under a key only the host and the trusted runtime entry hold (a fresh one per
 * started engine). Neither a local process nor the app can forge it, and a header captured on loopback
 * is worth nothing: it names one method and one body, and its sequence number is accepted once
 * (`SequenceWindow`).
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import { hmacSha256Hex, sha256Hex } from '../hash/index.ts';
import type { Auth } from '../runtime/index.ts';

export const IDENTITY_HEADER = 'x-platform-identity';
/** The path a host asks, once an engine started, whether the app is ready (or why not); it needs a signed identity too. */
export const READY_PATH = '/__platform/ready';
/**
 * The path a host asks, once an engine's process is up, whether the app's module loaded (or why not),
 * answered without starting the app: its data stays closed, so another engine may still serve it.
 * It needs a signed identity too.
 */
export const LOADED_PATH = '/__platform/loaded';
/** How long a signed identity is accepted: long enough for a request queued behind a slow handler. */
const LIFETIME_MS = 60_000;

export interface SignedIdentity {
  auth: Auth;
  /** The URL the visitor asked for (the engine itself is reached at a loopback address). */
  url: string;
  /** The request's method, upper case. */
  method: string;
  /** The SHA-256 of the request's body, hex; empty for a request without one. */
  bodyHash: string;
  /** Increasing per engine start: each number is accepted once. */
  sequence: number;
  /** Who a live connection or streamed response holds its slot for (hosting names one; local hosts do not). */
  visitor?: string;
  /** Milliseconds since the epoch after which the identity is refused. */
  expiresAt: number;
}

/** What a host signs for one request. */
export interface IdentityRequest {
  auth: Auth;
  url: string;
  method: string;
  body?: Uint8Array | null;
  sequence: number;
  visitor?: string;
}

const encoder = new TextEncoder();
// Taken when this module loads, before any app code runs in the same isolate and could replace them.
const decode = decodeURIComponent;
const parse = JSON.parse;

/** The hash a signed identity names for a body (empty for none, or an empty one). */
export function bodyHash(body: Uint8Array | null | undefined): string {
  return body && body.byteLength > 0 ? sha256Hex(body) : '';
}

/** The header value for one request. */
export function signIdentity(key: Uint8Array, request: IdentityRequest, now = Date.now()): string {
  const identity: SignedIdentity = {
    auth: request.auth,
    url: request.url,
    method: request.method.toUpperCase(),
    bodyHash: bodyHash(request.body),
    sequence: request.sequence,
    ...(request.visitor !== undefined ? { visitor: request.visitor } : {}),
    expiresAt: now + LIFETIME_MS,
  };
  const text = JSON.stringify(identity);
  return `${encodeURIComponent(text)}.${hmacSha256Hex(key, text)}`;
}

// WebCrypto, taken when this module loads (before any app code runs in the same isolate).
const subtle = crypto.subtle;
const importKey = subtle.importKey.bind(subtle);
const verifyMac = subtle.verify.bind(subtle);
const digest = subtle.digest.bind(subtle);

function hexBytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[0-9a-f]{64}$/.test(text)) return undefined;
  const bytes = new Uint8Array(new ArrayBuffer(32));
  for (let i = 0; i < 32; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/**
 * The engine's side: the identity a header carries (undefined when it is missing, forged, edited or
 * expired) and the hash of the body it came with, on WebCrypto (the signature is compared in constant
 * time natively; a busy engine makes less garbage per request than with the JavaScript HMAC and SHA-256).
 */
export class IdentityVerifier {
  readonly #key: Promise<CryptoKey>;

  constructor(key: Uint8Array) {
    this.#key = importKey('raw', key as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  }

  async verify(header: string | null, now = Date.now()): Promise<SignedIdentity | undefined> {
    if (!header) return undefined;
    const dot = header.lastIndexOf('.');
    if (dot < 0) return undefined;
    const tag = hexBytes(header.slice(dot + 1));
    if (!tag) return undefined;
    let text: string;
    try {
      text = decode(header.slice(0, dot));
    } catch {
      return undefined;
    }
    if (!(await verifyMac('HMAC', await this.#key, tag, encoder.encode(text) as Uint8Array<ArrayBuffer>))) return undefined;
    const identity = parse(text) as SignedIdentity;
    return identity.expiresAt >= now ? identity : undefined;
  }

  async bodyHash(body: Uint8Array | null): Promise<string> {
    if (!body || body.byteLength === 0) return '';
    return bytesToHex(new Uint8Array(await digest('SHA-256', body as Uint8Array<ArrayBuffer>)));
  }
}

/** How far behind the highest sequence number seen a request may arrive (requests overlap and may be reordered). */
const WINDOW = 65_536;

/**
 * The sequence numbers an engine has accepted: each once, and none far behind the highest (whose
 * acceptance could not be remembered without unbounded memory). Anything older is a replay or lost.
 */
export class SequenceWindow {
  #highest = -1;
  readonly #seen = new Set<number>();

  /** Accepts `sequence` once; false for a number seen before or too old. */
  accept(sequence: number): boolean {
    if (!Number.isSafeInteger(sequence) || sequence < 0) return false;
    if (sequence <= this.#highest - WINDOW || this.#seen.has(sequence)) return false;
    this.#seen.add(sequence);
    if (sequence > this.#highest) this.#highest = sequence;
    if (this.#seen.size > 2 * WINDOW) for (const seen of this.#seen) if (seen <= this.#highest - WINDOW) this.#seen.delete(seen);
    return true;
  }
}
