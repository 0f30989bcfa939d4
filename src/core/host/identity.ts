/**
 * The identity a host hands to a hosted app's isolate with each request: the caller's `Auth` and the
 * request's public URL, in a header signed with HMAC-SHA-256 under a key only the host and the trusted
 * runtime entry hold (a fresh one per started engine). Neither a local process nor the app can forge it.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { Auth } from '../runtime/personas';

export const IDENTITY_HEADER = 'x-platform-identity';
/** The path a host asks, once an engine started, whether the app is ready (or why not); it needs a signed identity too. */
export const READY_PATH = '/__platform/ready';
/** How long a signed identity is accepted: long enough for a request queued behind a slow handler. */
const LIFETIME_MS = 60_000;

export interface SignedIdentity {
  auth: Auth;
  /** The URL the visitor asked for (the engine itself is reached at a loopback address). */
  url: string;
  /** Milliseconds since the epoch after which the identity is refused. */
  expiresAt: number;
}

const encoder = new TextEncoder();
// Taken when this module loads, before any app code runs in the same isolate and could replace them.
const decode = decodeURIComponent;
const parse = JSON.parse;

function sign(key: Uint8Array, text: string): string {
  return bytesToHex(hmac(sha256, key, encoder.encode(text)));
}

/** Equal lengths, compared without an early exit. */
function same(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** The header value for a request as `auth` to `url`. */
export function signIdentity(key: Uint8Array, auth: Auth, url: string, now = Date.now()): string {
  const text = JSON.stringify({ auth, url, expiresAt: now + LIFETIME_MS } satisfies SignedIdentity);
  return `${encodeURIComponent(text)}.${sign(key, text)}`;
}

/** The identity a header carries, or undefined when it is missing, forged, edited or expired. */
export function verifyIdentity(key: Uint8Array, header: string | null, now = Date.now()): SignedIdentity | undefined {
  if (!header) return undefined;
  const dot = header.lastIndexOf('.');
  if (dot < 0) return undefined;
  let text: string;
  try {
    text = decode(header.slice(0, dot));
  } catch {
    return undefined;
  }
  if (!same(header.slice(dot + 1), sign(key, text))) return undefined;
  const identity = parse(text) as SignedIdentity;
  return identity.expiresAt >= now ? identity : undefined;
}
