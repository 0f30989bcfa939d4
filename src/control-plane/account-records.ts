/**
 * The records of accounts (docs/control-plane.md, Accounts and passkeys), as small repositories, one per
 * resource: accounts, their passkeys and account sessions, which are kept as hashes only. The SQL lives
 * here, not in the ceremonies and sessions that use it (accounts.ts). Rows are the records' rows.
 */
import type { Records, Row } from './records';

export function accountRecords(records: Records) {
  const accounts = {
    get: (id: string): Promise<Row | undefined> => records.get('SELECT * FROM accounts WHERE id = ?', [id]),
    /** An account's `name` and `userHandle` alone. */
    nameAndHandle: (id: string): Promise<Row | undefined> => records.get('SELECT name, userHandle FROM accounts WHERE id = ?', [id]),
    nameTaken: async (name: string): Promise<boolean> => (await records.get('SELECT 1 FROM accounts WHERE name = ?', [name])) !== undefined,
    insert: (account: { id: string; name: string; userHandle: string; createdAt: number }): Promise<void> =>
      records.run('INSERT INTO accounts (id, name, userHandle, createdAt) VALUES (?, ?, ?, ?)', [account.id, account.name, account.userHandle, account.createdAt]),
    /** Whether any account has been granted builder status yet. */
    anyBuilder: async (): Promise<boolean> => (await records.get('SELECT 1 FROM accounts WHERE builderId IS NOT NULL')) !== undefined,
    /** Records that the account is the builder `builderId` since `since`. */
    setBuilder: (id: string, builderId: string, since: number): Promise<void> => records.run('UPDATE accounts SET builderId = ?, builderSince = ? WHERE id = ?', [builderId, since, id]),
  };

  const passkeys = {
    get: (credentialId: string): Promise<Row | undefined> => records.get('SELECT * FROM passkeys WHERE credentialId = ?', [credentialId]),
    exists: async (credentialId: string): Promise<boolean> => (await records.get('SELECT 1 FROM passkeys WHERE credentialId = ?', [credentialId])) !== undefined,
    /** An account's passkeys by `credentialId` and `transports` (a JSON array) alone, in no set order: what a new passkey must not be. */
    credentialsOf: (accountId: string): Promise<Row[]> => records.all('SELECT credentialId, transports FROM passkeys WHERE accountId = ?', [accountId]),
    /** An account's passkeys, oldest first. */
    ofAccount: (accountId: string): Promise<Row[]> => records.all('SELECT * FROM passkeys WHERE accountId = ? ORDER BY createdAt, credentialId', [accountId]),
    insert: (passkey: { credentialId: string; accountId: string; publicKey: string; counter: number; transports: string; deviceType: string; backedUp: number; createdAt: number }): Promise<void> =>
      records.run('INSERT INTO passkeys (credentialId, accountId, publicKey, counter, transports, deviceType, backedUp, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
        passkey.credentialId, passkey.accountId, passkey.publicKey, passkey.counter, passkey.transports, passkey.deviceType, passkey.backedUp, passkey.createdAt,
      ]),
    /** Records a sign-in with the passkey: its new signature counter and when it was used. */
    recordUse: (credentialId: string, counter: number, at: number): Promise<void> => records.run('UPDATE passkeys SET counter = ?, lastUsedAt = ? WHERE credentialId = ?', [counter, at, credentialId]),
  };

  const accountSessions = {
    insert: (tokenHash: string, accountId: string, createdAt: number, expiresAt: number): Promise<void> =>
      records.run('INSERT INTO account_sessions (tokenHash, accountId, createdAt, expiresAt) VALUES (?, ?, ?, ?)', [tokenHash, accountId, createdAt, expiresAt]),
    /** Forgets the sessions that expired before `now` (written only when there is one). */
    removeExpired: (now: number): Promise<void> => records.removeExpired('account_sessions', now),
    /** The account of a session not revoked and not expired at `now`: the account's columns. */
    live: (tokenHash: string, now: number): Promise<Row | undefined> =>
      records.get('SELECT a.* FROM account_sessions s JOIN accounts a ON a.id = s.accountId WHERE s.tokenHash = ? AND s.revokedAt IS NULL AND s.expiresAt > ?', [tokenHash, now]),
    revoke: (tokenHash: string, at: number): Promise<void> => records.run('UPDATE account_sessions SET revokedAt = ? WHERE tokenHash = ?', [at, tokenHash]),
  };

  return { accounts, passkeys, accountSessions };
}

export type AccountRecords = ReturnType<typeof accountRecords>;
