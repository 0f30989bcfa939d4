/**
 * The playground's builder credential: a key the page cannot export. The Deploy panel makes an ECDSA
 * P-256 key pair whose private half is non-extractable, has the control plane bind its public half to
 * a session (or a pasted token) and to the playground's origin, and signs each request with it:
 * `Authorization: Proof <keyId> <ms> <signature>`. Nothing a page script, another origin's page or
 * another local server can read is a credential (docs/control-plane.md, The playground's credential).
 * The format is declared here once: the panel signs by it, the control plane verifies by it.
 */
import { encodeBase64url } from '../bytes.ts';

/** The scheme of a signed request's Authorization header. */
export const PROOF_SCHEME = 'Proof';
/** How far a signed request's time may be from the control plane's clock, either way. */
export const PROOF_WINDOW_MS = 120_000;
/** A browser key's id as the control plane issues it. */
export const BROWSER_KEY_ID = /^xbk_[A-Za-z0-9_-]{16,64}$/;

/** The key's algorithm: ECDSA over P-256 with SHA-256; signatures are r‖s (64 bytes), as WebCrypto makes them. */
export const PROOF_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
export const PROOF_SIGNATURE = { name: 'ECDSA', hash: 'SHA-256' } as const;

/** A P-256 public key as a JWK, and nothing more (a `d` would be the private key). */
export interface ProofPublicKey {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
}

const COORDINATE = /^[A-Za-z0-9_-]{43}$/;

/** Whether a value is a P-256 public JWK with no private part. */
export function isProofPublicKey(value: unknown): value is ProofPublicKey {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const key = value as Record<string, unknown>;
  return key.kty === 'EC' && key.crv === 'P-256' && typeof key.x === 'string' && COORDINATE.test(key.x) && typeof key.y === 'string' && COORDINATE.test(key.y) && !('d' in key);
}

/** The bytes a request's signature covers: the key, the method, the path with its query, the time. */
export function proofMessage(keyId: string, method: string, target: string, at: number): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`platform.proof.v0\n${keyId}\n${method.toUpperCase()}\n${target}\n${at}`) as Uint8Array<ArrayBuffer>;
}

/** A URL's path and query as a signature covers them. */
export function proofTarget(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** A signed request's Authorization header, parsed; undefined when it is not one. */
export function parseProof(header: string): { keyId: string; at: number; signature: string } | undefined {
  const match = /^Proof (xbk_[A-Za-z0-9_-]{16,64}) (\d{1,15}) ([A-Za-z0-9_-]{86})$/.exec(header);
  return match ? { keyId: match[1]!, at: Number(match[2]), signature: match[3]! } : undefined;
}

/** A new key pair: the private half cannot be exported, not even by the page that made it. */
export async function newProofKey(): Promise<{ privateKey: CryptoKey; publicKey: ProofPublicKey }> {
  const pair = (await crypto.subtle.generateKey(PROOF_ALGORITHM, false, ['sign', 'verify'])) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey('jwk', pair.publicKey);
  return { privateKey: pair.privateKey, publicKey: { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! } };
}

/** The Authorization header of a request signed with a bound key. */
export async function signProof(privateKey: CryptoKey, keyId: string, method: string, url: string, at: number): Promise<string> {
  const signature = new Uint8Array(await crypto.subtle.sign(PROOF_SIGNATURE, privateKey, proofMessage(keyId, method, proofTarget(url), at)));
  return `${PROOF_SCHEME} ${keyId} ${at} ${encodeBase64url(signature)}`;
}
