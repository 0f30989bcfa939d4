/**
 * The control plane's own secrets, made on first start and kept in its data directory (mode 0600): the
 * operator secret a person types on the approval page, the key that signs visitors' cookies, the key
 * that seals environment values and the key cursors of hosted apps are signed with. Control plane
 * processes sharing records in PostgreSQL share these too, kept in the records (`sharedSecrets`): a
 * cookie one signs, or a value one seals, another reads.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from './files';
import { nodeRecords } from './node-records';
import type { Records } from './records';

export interface Secrets {
  operatorSecret: string;
  cookieKey: Buffer;
  envKey: Buffer;
  cursorKey: Buffer;
}

const randomToken = () => randomBytes(32).toString('base64url');

/** Reads the secrets of a data directory, making them the first time. */
export function loadSecrets(dataDir: string | undefined, operatorSecret?: string): Secrets {
  return secretsOf(storedSecrets(dataDir), operatorSecret);
}

/** The secrets kept in a data directory, made the first time. */
function storedSecrets(dataDir: string | undefined): Record<string, string> {
  const file = dataDir ? join(dataDir, 'secrets.json') : undefined;
  let stored: Record<string, string> | undefined;
  if (file && existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  if (!stored) {
    stored = { operatorSecret: randomToken(), cookieKey: randomToken(), envKey: randomToken(), cursorKey: randomToken() };
    if (file) writeAtomic(file, `${JSON.stringify(stored, null, 2)}\n`);
  }
  return stored;
}

/**
 * The secrets of control plane processes sharing records in PostgreSQL: the first to start keeps its
 * data directory's secrets in the records (so the values it sealed stay readable), and every process,
 * it included, uses the ones kept there.
 */
export async function sharedSecrets(records: Records, dataDir: string, operatorSecret?: string): Promise<Secrets> {
  if (records.engine !== 'postgres') return loadSecrets(dataDir, operatorSecret);
  const { settings } = nodeRecords(records);
  const kept = (await settings.get('secrets')) ?? (await settings.keepFirst('secrets', JSON.stringify(storedSecrets(dataDir))));
  return secretsOf(JSON.parse(kept) as Record<string, string>, operatorSecret);
}

function secretsOf(stored: Record<string, string>, operatorSecret?: string): Secrets {
  return {
    operatorSecret: operatorSecret ?? stored.operatorSecret!,
    cookieKey: Buffer.from(stored.cookieKey!, 'base64url'),
    envKey: Buffer.from(stored.envKey!, 'base64url'),
    cursorKey: Buffer.from(stored.cursorKey!, 'base64url'),
  };
}

/** SHA-256 hex: tokens are kept only as hashes (they carry 256 random bits, so no slow hash is needed). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Compares two strings in time that does not depend on where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

export function hmac(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest('base64url');
}

/** Seals a value with AES-256-GCM: base64url of iv, ciphertext and tag. `context` binds it to its app, scope and name. */
export function seal(key: Buffer, value: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

export function unseal(key: Buffer, sealed: string, context: string): string {
  const bytes = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
}
