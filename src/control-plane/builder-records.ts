/**
 * The records of builders and their credentials, as small repositories, one per resource: builders,
 * builder sessions, service tokens, playgrounds' keys (browser-keys.ts) and the blobs each builder sent
 * (artifacts.ts). Only the hashes of sessions and tokens are kept. The SQL lives here, not in the route
 * handlers (auth-routes.ts) or the credential check (context.ts). Rows are the records' rows.
 */
import type { Records, Row } from './records';

export function builderRecords(records: Records) {
  const builders = {
    /** A builder's id and name. */
    get: (id: string): Promise<Row | undefined> => records.get('SELECT id, name FROM builders WHERE id = ?', [id]),
    insert: (id: string, name: string, createdAt: number): Promise<void> => records.run('INSERT INTO builders (id, name, createdAt) VALUES (?, ?, ?)', [id, name, createdAt]),
    /** A builder named `name` from before accounts (signed in by name and secret) that no account has claimed yet: its id. */
    unclaimedNamed: async (name: string): Promise<string | undefined> => {
      const found = await records.get('SELECT b.id FROM builders b WHERE b.name = ? AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.builderId = b.id)', [name]);
      return found ? String(found.id) : undefined;
    },
  };

  const sessions = {
    insert: (tokenHash: string, builderId: string, createdAt: number): Promise<void> =>
      records.run('INSERT INTO sessions (tokenHash, builderId, createdAt) VALUES (?, ?, ?)', [tokenHash, builderId, createdAt]),
    /** A session not revoked, with its builder's name: `builderId`, `createdAt`, `name`. */
    live: (tokenHash: string): Promise<Row | undefined> =>
      records.get('SELECT s.builderId, s.createdAt, b.name FROM sessions s JOIN builders b ON b.id = s.builderId WHERE s.tokenHash = ? AND s.revokedAt IS NULL', [tokenHash]),
    revoke: (tokenHash: string, at: number): Promise<void> => records.run('UPDATE sessions SET revokedAt = ? WHERE tokenHash = ?', [at, tokenHash]),
  };

  const serviceTokens = {
    insert: (token: { id: string; tokenHash: string; builderId: string; name: string; createdAt: number }): Promise<void> =>
      records.run('INSERT INTO service_tokens (id, tokenHash, builderId, name, createdAt) VALUES (?, ?, ?, ?, ?)', [token.id, token.tokenHash, token.builderId, token.name, token.createdAt]),
    /** A builder's tokens not revoked, oldest first. */
    liveOf: (builderId: string): Promise<Row[]> => records.all('SELECT * FROM service_tokens WHERE builderId = ? AND revokedAt IS NULL ORDER BY createdAt, id', [builderId]),
    /** One of a builder's tokens, when it is not revoked. */
    liveOne: (id: string, builderId: string): Promise<Row | undefined> => records.get('SELECT * FROM service_tokens WHERE id = ? AND builderId = ? AND revokedAt IS NULL', [id, builderId]),
    /** The token a secret's hash names, not revoked, with its builder's name: `id`, `builderId`, `createdAt`, `lastUsedAt`, `name`. */
    liveByHash: (tokenHash: string): Promise<Row | undefined> =>
      records.get('SELECT t.id, t.builderId, t.createdAt, t.lastUsedAt, b.name FROM service_tokens t JOIN builders b ON b.id = t.builderId WHERE t.tokenHash = ? AND t.revokedAt IS NULL', [tokenHash]),
    touch: (id: string, at: number): Promise<void> => records.run('UPDATE service_tokens SET lastUsedAt = ? WHERE id = ?', [at, id]),
    revoke: (id: string, at: number): Promise<void> => records.run('UPDATE service_tokens SET revokedAt = ? WHERE id = ?', [at, id]),
  };

  const browserKeys = {
    insert: (key: { keyId: string; publicKey: string; origin: string; kind: string; credentialHash: string; builderId: string; createdAt: number }): Promise<void> =>
      records.run('INSERT INTO browser_keys (keyId, publicKey, origin, kind, credentialHash, builderId, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        key.keyId, key.publicKey, key.origin, key.kind, key.credentialHash, key.builderId, key.createdAt,
      ]),
    /** A key not signed out. */
    live: (keyId: string): Promise<Row | undefined> => records.get('SELECT * FROM browser_keys WHERE keyId = ? AND revokedAt IS NULL', [keyId]),
    revoke: (keyId: string, at: number): Promise<void> => records.run('UPDATE browser_keys SET revokedAt = ? WHERE keyId = ? AND revokedAt IS NULL', [at, keyId]),
  };

  const blobOwners = {
    /** Whether the builder sent the blob before (only then may a deploy of theirs leave it out). */
    owns: async (builderId: string, sha256: string): Promise<boolean> => (await records.get('SELECT 1 FROM blob_owners WHERE builderId = ? AND sha256 = ?', [builderId, sha256])) !== undefined,
    /** Records that the builder sent these blobs (once each), all or none. */
    add: async (builderId: string, hashes: Iterable<string>): Promise<void> =>
      records.transaction(async () => {
        for (const sha256 of hashes) await records.run('INSERT INTO blob_owners (builderId, sha256) VALUES (?, ?) ON CONFLICT DO NOTHING', [builderId, sha256]);
      }),
  };

  return { builders, sessions, serviceTokens, browserKeys, blobOwners };
}

export type BuilderRecords = ReturnType<typeof builderRecords>;
