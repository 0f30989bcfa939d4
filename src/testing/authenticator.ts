/**
 * Tests only: a software passkey authenticator, as a browser's platform authenticator would answer
 * WebAuthn ceremonies. It makes P-256 (ES256) discoverable credentials with a 'none' attestation and
 * signs assertions with a signature counter, and can be told to lie (another origin, another rpId, a
 * counter gone backwards) for attacker tests. CBOR and COSE come from @simplewebauthn/server/helpers,
 * keys and signatures from node:crypto. Never used by the product.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { cose, isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';

export interface SoftCredential {
  /** The credential id, base64url. */
  id: string;
  rpId: string;
  userHandle: string;
  userName: string;
  privateKey: KeyObject;
  /** The signature counter of the last assertion (0 after registration). */
  counter: number;
}

/** What a lying authenticator (or a phishing page) changes in what it signs. */
export interface Tampering {
  origin?: string;
  rpId?: string;
  challenge?: string;
  /** The counter to sign (default: one past the last). */
  counter?: number;
  /** User verification (default true, as a platform authenticator with a PIN or biometrics). */
  userVerified?: boolean;
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;
const sha256 = (data: Uint8Array | string) => new Uint8Array(createHash('sha256').update(data).digest());
const u32 = (n: number) => {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, n);
  return bytes;
};
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
};
const clientData = (type: string, challenge: string, origin: string) => new TextEncoder().encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));

export class SoftAuthenticator {
  /** Every credential it holds, oldest first. */
  readonly credentials: SoftCredential[] = [];

  /** Answers navigator.credentials.create() for `options`, as seen from a page at `origin`. */
  create(options: PublicKeyCredentialCreationOptionsJSON, origin: string, tampering: Tampering = {}): { response: RegistrationResponseJSON; credential: SoftCredential } {
    const rpId = tampering.rpId ?? options.rp.id ?? new URL(origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [cose.COSEKEYS.kty, cose.COSEKTY.EC2],
        [cose.COSEKEYS.alg, cose.COSEALG.ES256],
        [cose.COSEKEYS.crv, cose.COSECRV.P256],
        [cose.COSEKEYS.x, isoBase64URL.toBuffer(jwk.x!)],
        [cose.COSEKEYS.y, isoBase64URL.toBuffer(jwk.y!)],
      ]),
    );
    const rawId = new Uint8Array(randomBytes(16));
    const idLength = new Uint8Array([rawId.byteLength >> 8, rawId.byteLength & 0xff]);
    const flags = FLAG_UP | FLAG_AT | (tampering.userVerified === false ? 0 : FLAG_UV);
    const authData = concat(sha256(rpId), new Uint8Array([flags]), u32(0), new Uint8Array(16), idLength, rawId, coseKey);
    const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]) as Map<string, never>);
    const id = isoBase64URL.fromBuffer(rawId);
    const credential: SoftCredential = { id, rpId, userHandle: options.user.id, userName: options.user.name, privateKey, counter: 0 };
    this.credentials.push(credential);
    const response: RegistrationResponseJSON = {
      id,
      rawId: id,
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: isoBase64URL.fromBuffer(clientData('webauthn.create', tampering.challenge ?? options.challenge, tampering.origin ?? origin)),
        attestationObject: isoBase64URL.fromBuffer(attestationObject),
        transports: ['internal'],
      },
    };
    return { response, credential };
  }

  /** Answers navigator.credentials.get() for `options` with `credential`, as seen from a page at `origin`. */
  get(options: PublicKeyCredentialRequestOptionsJSON, origin: string, credential: SoftCredential, tampering: Tampering = {}): AuthenticationResponseJSON {
    const rpId = tampering.rpId ?? options.rpId ?? new URL(origin).hostname;
    const counter = tampering.counter ?? credential.counter + 1;
    credential.counter = Math.max(credential.counter, counter);
    const flags = FLAG_UP | (tampering.userVerified === false ? 0 : FLAG_UV);
    const authenticatorData = concat(sha256(rpId), new Uint8Array([flags]), u32(counter));
    const data = clientData('webauthn.get', tampering.challenge ?? options.challenge, tampering.origin ?? origin);
    const signature = sign('sha256', concat(authenticatorData, sha256(data)), credential.privateKey);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: isoBase64URL.fromBuffer(data),
        authenticatorData: isoBase64URL.fromBuffer(authenticatorData),
        signature: isoBase64URL.fromBuffer(new Uint8Array(signature)),
        userHandle: credential.userHandle,
      },
    };
  }
}
