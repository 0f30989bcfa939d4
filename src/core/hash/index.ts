/** SHA-256 and canonical JSON: the content addressing shared by artifacts, persona ids and state exports. */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

const encoder = new TextEncoder();

/** The host's own SHA-256 (lowercase hex), when it has a faster one than this module's JavaScript. */
let hostSha256: ((data: Uint8Array | string) => string) | undefined;

/**
 * Lets a host compute every `sha256Hex` with its own SHA-256 (Node's, in native code: about 14 times
 * faster on large inputs than @noble/hashes, which the browser's synchronous callers need since Web
 * Crypto's digest is asynchronous). The digests are the same; only their cost changes. The analysis
 * digests every file and each file's import closure on every build (analyze.ts), so in `platform dev`
 * at 500 files this was a tenth of an edit.
 */
export function useHostSha256(digest: (data: Uint8Array | string) => string): void {
  hostSha256 = digest;
}

/** Lowercase hex SHA-256 of bytes or of a string's UTF-8. */
export function sha256Hex(data: Uint8Array | string): string {
  if (hostSha256) return hostSha256(data);
  return bytesToHex(sha256(typeof data === 'string' ? encoder.encode(data) : data));
}

/** The host's own HMAC-SHA-256 (lowercase hex), when it has a faster one than this module's JavaScript. */
let hostHmacSha256: ((key: Uint8Array, data: Uint8Array | string) => string) | undefined;

/**
 * Lets a host compute every `hmacSha256Hex` with its own HMAC (Node's, in native code). The control
 * plane signs an identity for every request it hands an app's engine (src/core/host/identity.ts), so
 * at 50 connections the JavaScript HMAC and SHA-256 were a tenth of its time.
 */
export function useHostHmacSha256(mac: (key: Uint8Array, data: Uint8Array | string) => string): void {
  hostHmacSha256 = mac;
}

/** Lowercase hex HMAC-SHA-256 of bytes or of a string's UTF-8 under `key`. */
export function hmacSha256Hex(key: Uint8Array, data: Uint8Array | string): string {
  if (hostHmacSha256) return hostHmacSha256(key, data);
  return bytesToHex(hmac(sha256, key, typeof data === 'string' ? encoder.encode(data) : data));
}

/**
 * JSON with object keys sorted at every depth and no white space: equal values give equal text on
 * every machine. `undefined` properties are dropped, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  // Arrays of strings, finite numbers, booleans and null, at any depth, have no keys to sort: JSON.stringify
  // gives the same text, in native code (the analysis digests a list of [file, digest] pairs per file).
  if (Array.isArray(value) && keyless(value)) return JSON.stringify(value);
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** Whether a value is made of arrays, strings, finite numbers, booleans, null and (in arrays) undefined only. */
function keyless(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      return value === null || (Array.isArray(value) && value.every(keyless));
    default:
      return false;
  }
}
