/** Content-Security-Policy pieces the playground's sandboxed frames share. */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToBase64 } from '../modules/wire';

/** The `script-src` source that lets exactly this inline script run: `'sha256-…'`. */
export function scriptHashSource(script: string): string {
  return `'sha256-${bytesToBase64(sha256(new TextEncoder().encode(script)))}'`;
}
