/**
 * The records of builders and their credentials, as small repositories, one per resource: builders,
 * builder sessions and service tokens. Only the hashes of sessions and tokens are kept. The SQL lives
 * here, not in the route handlers (auth-routes.ts) or the credential check (context.ts). Rows are the
 * records' rows.
 */
import type { Records, Row } from './records';

export function builderRecords(records: Records) {
  const builders = {
    /** A builder's id and name. */
    get: (id: string): Row | undefined => records.get('SELECT id, name FROM builders WHERE id = ?', [id]),
  };

  const sessions = {
    insert: (tokenHash: string, builderId: string, createdAt: number): void =>
      records.run('INSERT INTO sessions (tokenHash, builderId, createdAt) VALUES (?, ?, ?)', [tokenHash, builderId, createdAt]),
    /** A session not revoked, with its builder's name: `builderId`, `createdAt`, `name`. */
    live: (tokenHash: string): Row | undefined =>
      records.get('SELECT s.builderId, s.createdAt, b.name FROM sessions s JOIN builders b ON b.id = s.builderId WHERE s.tokenHash = ? AND s.revokedAt IS NULL', [tokenHash]),
    revoke: (tokenHash: string, at: number): void => records.run('UPDATE sessions SET revokedAt = ? WHERE tokenHash = ?', [at, tokenHash]),
  };

  const serviceTokens = {
    insert: (token: { id: string; tokenHash: string; builderId: string; name: string; createdAt: number }): void =>
      records.run('INSERT INTO service_tokens (id, tokenHash, builderId, name, createdAt) VALUES (?, ?, ?, ?, ?)', [token.id, token.tokenHash, token.builderId, token.name, token.createdAt]),
    /** A builder's tokens not revoked, oldest first. */
    liveOf: (builderId: string): Row[] => records.all('SELECT * FROM service_tokens WHERE builderId = ? AND revokedAt IS NULL ORDER BY createdAt, id', [builderId]),
    /** One of a builder's tokens, when it is not revoked. */
    liveOne: (id: string, builderId: string): Row | undefined => records.get('SELECT * FROM service_tokens WHERE id = ? AND builderId = ? AND revokedAt IS NULL', [id, builderId]),
    /** The token a secret's hash names, not revoked, with its builder's name: `id`, `builderId`, `createdAt`, `lastUsedAt`, `name`. */
    liveByHash: (tokenHash: string): Row | undefined =>
      records.get('SELECT t.id, t.builderId, t.createdAt, t.lastUsedAt, b.name FROM service_tokens t JOIN builders b ON b.id = t.builderId WHERE t.tokenHash = ? AND t.revokedAt IS NULL', [tokenHash]),
    touch: (id: string, at: number): void => records.run('UPDATE service_tokens SET lastUsedAt = ? WHERE id = ?', [at, id]),
    revoke: (id: string, at: number): void => records.run('UPDATE service_tokens SET revokedAt = ? WHERE id = ?', [at, id]),
  };

  return { builders, sessions, serviceTokens };
}

export type BuilderRecords = ReturnType<typeof builderRecords>;
