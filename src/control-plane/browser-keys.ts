/**
 * The playground's credential (docs/control-plane.md, The playground's credential): a public key bound
 * to a builder credential and to the playground origin that bound it. The Deploy panel holds the
 * private key, non-extractable, and signs each request with it (core/deploy/proof.ts); the session or
 * token behind it never reaches the page. Not a cookie: cookies are not isolated by port, so a cookie
 * of localhost:4310 is sent to every other server on localhost, whatever its attributes.
 */
import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { isProofPublicKey, parseProof, type ProofPublicKey, PROOF_WINDOW_MS, proofMessage, proofTarget, type BrowserKeyAnswer } from '../core/deploy';
import { answer, credentialCaller, iso, refuse, type Answered, type Caller, type Context, type Refused } from './context';

/** A request's Origin when it is one of the playgrounds' (exactly; never judged by Host or Referer). */
export function playgroundOrigin(ctx: Context, request: Request): string | undefined {
  const origin = request.headers.get('origin');
  return origin !== null && ctx.playgroundOrigins.includes(origin) ? origin : undefined;
}

/** Whether a request is signed with a playground key (its Authorization scheme is `Proof`). */
export const isSigned = (request: Request) => (request.headers.get('authorization') ?? '').startsWith('Proof ');

export const foreignOrigin = (ctx: Context) =>
  refuse(403, 'foreign_origin', `Playground keys are bound to the playground that signed in (${ctx.playgroundOrigins.join(', ') || 'none configured'}), and used from it only.`);

/** Why a key cannot be bound (the refusal), or undefined: a P-256 public JWK, a point of the curve. */
export function keyRefusal(publicKey: unknown): Refused | undefined {
  if (!isProofPublicKey(publicKey)) return refuse(400, 'invalid_request', 'Send "publicKey": a P-256 public key as a JWK ({ kty: "EC", crv: "P-256", x, y }), without its private part.');
  try {
    createPublicKey({ key: { ...publicKey }, format: 'jwk' });
    return undefined;
  } catch {
    return refuse(400, 'invalid_request', 'The public key is not a point of P-256.');
  }
}

/** Binds a new key (checked by keyRefusal) to a credential, for the playground origin the request came from. */
export async function bindKey(ctx: Context, origin: string, publicKey: ProofPublicKey, credential: Pick<Caller, 'kind' | 'tokenHash' | 'builderId' | 'builderName' | 'expiresAt'>): Promise<Answered<BrowserKeyAnswer>> {
  const keyId = `xbk_${randomBytes(24).toString('base64url')}`;
  await ctx.builders.browserKeys.insert({ keyId, publicKey: JSON.stringify(publicKey), origin, kind: credential.kind, credentialHash: credential.tokenHash, builderId: credential.builderId, createdAt: ctx.now() });
  return answer(200, { keyId, builder: { id: credential.builderId, name: credential.builderName }, credential: { kind: credential.kind }, expiresAt: iso(credential.expiresAt) });
}

/**
 * The builder a signed request comes from, or the refusal: the key must be bound and live, the request
 * must come from the origin it was bound to, its time within PROOF_WINDOW_MS, its signature the key's
 * over its method, path and time, and the credential behind it live.
 */
export async function signedCaller(ctx: Context, request: Request): Promise<Caller | Refused> {
  const proof = parseProof(request.headers.get('authorization') ?? '');
  if (!proof) return refuse(401, 'unauthorized', 'A signed request carries Authorization: Proof <keyId> <ms> <signature>.');
  const row = await ctx.builders.browserKeys.live(proof.keyId);
  if (!row) return refuse(401, 'unauthorized', 'The key is unknown, or was signed out.');
  if (request.headers.get('origin') !== row.origin) return foreignOrigin(ctx);
  const now = ctx.now();
  if (Math.abs(now - proof.at) > PROOF_WINDOW_MS) return refuse(401, 'unauthorized', `The request was signed at ${iso(proof.at)}, more than ${PROOF_WINDOW_MS / 1000} s from the control plane's clock (${iso(now)}).`);
  let key: KeyObject;
  try {
    key = createPublicKey({ key: JSON.parse(String(row.publicKey)) as Record<string, string>, format: 'jwk' });
  } catch {
    return refuse(401, 'unauthorized', 'The key is unknown, or was signed out.');
  }
  const message = proofMessage(proof.keyId, request.method, proofTarget(request.url), proof.at);
  if (!verify('sha256', message, { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(proof.signature, 'base64url'))) return refuse(401, 'unauthorized', 'The request\'s signature is not its key\'s.');
  const caller = await credentialCaller(ctx, row.kind as Caller['kind'], String(row.credentialHash));
  return caller instanceof Response ? caller : { ...caller, browserKey: proof.keyId };
}

/** Ends a key (sign-out): it signs nothing more. */
export async function revokeBrowserKey(ctx: Context, keyId: string): Promise<void> {
  await ctx.builders.browserKeys.revoke(keyId, ctx.now());
}
