/**
 * The records of people signed in to hosted apps, as small repositories, one per resource: the one-time
 * sign-in codes the control plane hands back to an app origin, the app sessions they become (per app and
 * environment), and the workspaces of an app environment with their members and invitations. Codes,
 * sessions and invitations are kept as SHA-256 hashes only. The SQL lives here, not in app-auth.ts.
 * Rows are the records' rows.
 */
import type { Environment } from '../core/deploy';
import type { Records, Row } from './records';

export function appUserRecords(records: Records) {
  const signInCodes = {
    /** Removes the codes that expired before `before`, when there are any. */
    removeExpired: (before: number): Promise<void> => records.removeExpired('app_sign_in_codes', before),
    insert: (code: { codeHash: string; accountId: string; appId: string; environment: Environment; stateHash: string; createdAt: number; expiresAt: number }): Promise<void> =>
      records.run('INSERT INTO app_sign_in_codes (codeHash, accountId, appId, environment, stateHash, createdAt, expiresAt) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        code.codeHash, code.accountId, code.appId, code.environment, code.stateHash, code.createdAt, code.expiresAt,
      ]),
    /** A code by its hash, used or not, expired or not. */
    get: (codeHash: string): Promise<Row | undefined> => records.get('SELECT * FROM app_sign_in_codes WHERE codeHash = ?', [codeHash]),
    /** Records the code as spent at `at`, and the hash of the session it made. */
    markUsed: (codeHash: string, at: number, sessionHash: string): Promise<void> => records.run('UPDATE app_sign_in_codes SET usedAt = ?, sessionHash = ? WHERE codeHash = ?', [at, sessionHash, codeHash]),
  };

  const sessions = {
    /** A session of the app environment neither revoked nor expired at `now`: its `id` and `accountId`. */
    live: (tokenHash: string, appId: string, environment: Environment, now: number): Promise<Row | undefined> =>
      records.get('SELECT id, accountId FROM app_sessions WHERE tokenHash = ? AND appId = ? AND environment = ? AND revokedAt IS NULL AND expiresAt > ?', [tokenHash, appId, environment, now]),
    /** Removes the sessions that expired before `now`, when there are any. */
    removeExpired: (now: number): Promise<void> => records.removeExpired('app_sessions', now),
    insert: (session: { tokenHash: string; id: string; accountId: string; appId: string; environment: Environment; createdAt: number; expiresAt: number }): Promise<void> =>
      records.run('INSERT INTO app_sessions (tokenHash, id, accountId, appId, environment, createdAt, expiresAt) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        session.tokenHash, session.id, session.accountId, session.appId, session.environment, session.createdAt, session.expiresAt,
      ]),
    revoke: (tokenHash: string, at: number): Promise<void> => records.run('UPDATE app_sessions SET revokedAt = ? WHERE tokenHash = ?', [at, tokenHash]),
    /** Revokes the session unless it is revoked already (then its first revocation stays). */
    revokeIfLive: (tokenHash: string, at: number): Promise<void> => records.run('UPDATE app_sessions SET revokedAt = ? WHERE tokenHash = ? AND revokedAt IS NULL', [at, tokenHash]),
  };

  const workspaces = {
    /** The ids of the app environment's workspaces the person belongs to, in the order they joined. */
    idsOfMember: async (accountId: string, appId: string, environment: Environment): Promise<string[]> =>
      (
        await records.all('SELECT w.id FROM workspace_members m JOIN workspaces w ON w.id = m.workspaceId WHERE m.accountId = ? AND w.appId = ? AND w.environment = ? ORDER BY m.joinedAt, w.id', [accountId, appId, environment])
      ).map((row) => String(row.id)),
    /** The app environment's workspaces the person belongs to, in the order they joined: `id`, `name` and how many `members` each has. */
    ofMember: (accountId: string, appId: string, environment: Environment): Promise<Row[]> =>
      records.all(
        'SELECT w.id, w.name, (SELECT count(*) FROM workspace_members x WHERE x.workspaceId = w.id) AS members FROM workspace_members m JOIN workspaces w ON w.id = m.workspaceId WHERE m.accountId = ? AND w.appId = ? AND w.environment = ? ORDER BY m.joinedAt, w.id',
        [accountId, appId, environment],
      ),
    /** How many of the app environment's workspaces the person belongs to. */
    countOfMember: async (accountId: string, appId: string, environment: Environment): Promise<number> =>
      Number((await records.get('SELECT count(*) AS n FROM workspace_members m JOIN workspaces w ON w.id = m.workspaceId WHERE m.accountId = ? AND w.appId = ? AND w.environment = ?', [accountId, appId, environment]))?.n ?? 0),
    /** How many workspaces of the app environment the person created after `since` (whether they are still in them or not). */
    countCreatedSince: async (accountId: string, appId: string, environment: Environment, since: number): Promise<number> =>
      Number((await records.get('SELECT count(*) AS n FROM workspaces WHERE createdBy = ? AND appId = ? AND environment = ? AND createdAt > ?', [accountId, appId, environment, since]))?.n ?? 0),
    insert: (workspace: { id: string; appId: string; environment: Environment; name: string; createdBy: string; createdAt: number }): Promise<void> =>
      records.run('INSERT INTO workspaces (id, appId, environment, name, createdBy, createdAt) VALUES (?, ?, ?, ?, ?, ?)', [
        workspace.id, workspace.appId, workspace.environment, workspace.name, workspace.createdBy, workspace.createdAt,
      ]),
  };

  const members = {
    add: (workspaceId: string, accountId: string, joinedAt: number): Promise<void> => records.run('INSERT INTO workspace_members (workspaceId, accountId, joinedAt) VALUES (?, ?, ?)', [workspaceId, accountId, joinedAt]),
    remove: (workspaceId: string, accountId: string): Promise<void> => records.run('DELETE FROM workspace_members WHERE workspaceId = ? AND accountId = ?', [workspaceId, accountId]),
    isMember: async (workspaceId: string, accountId: string): Promise<boolean> => (await records.get('SELECT 1 FROM workspace_members WHERE workspaceId = ? AND accountId = ?', [workspaceId, accountId])) !== undefined,
  };

  const invites = {
    /** How many of the workspace's invitations are unused and unexpired at `now`. */
    countOpen: async (workspaceId: string, now: number): Promise<number> =>
      Number((await records.get('SELECT count(*) AS n FROM workspace_invites WHERE workspaceId = ? AND usedAt IS NULL AND expiresAt > ?', [workspaceId, now]))?.n ?? 0),
    /** Removes the workspace's invitations that expired before `before` (used or not). */
    removeExpired: (workspaceId: string, before: number): Promise<void> => records.run('DELETE FROM workspace_invites WHERE workspaceId = ? AND expiresAt < ?', [workspaceId, before]),
    insert: (invite: { tokenHash: string; workspaceId: string; invitedBy: string; createdAt: number; expiresAt: number }): Promise<void> =>
      records.run('INSERT INTO workspace_invites (tokenHash, workspaceId, invitedBy, createdAt, expiresAt) VALUES (?, ?, ?, ?, ?)', [
        invite.tokenHash, invite.workspaceId, invite.invitedBy, invite.createdAt, invite.expiresAt,
      ]),
    /** An invitation by its hash with its workspace's `name`, `appId` and `environment`. */
    withWorkspace: (tokenHash: string): Promise<Row | undefined> =>
      records.get('SELECT i.*, w.name, w.appId, w.environment FROM workspace_invites i JOIN workspaces w ON w.id = i.workspaceId WHERE i.tokenHash = ?', [tokenHash]),
    /** Withdraws the workspace's invitations that `invitedBy` sent and that are still open (unused, unexpired) at `at`, by expiring them at `at`. */
    withdrawBy: (workspaceId: string, invitedBy: string, at: number): Promise<void> =>
      records.run('UPDATE workspace_invites SET expiresAt = ? WHERE workspaceId = ? AND invitedBy = ? AND usedAt IS NULL AND expiresAt > ?', [at, workspaceId, invitedBy, at]),
    markUsed: (tokenHash: string, at: number, usedBy: string): Promise<void> => records.run('UPDATE workspace_invites SET usedAt = ?, usedBy = ? WHERE tokenHash = ?', [at, usedBy, tokenHash]),
  };

  return { signInCodes, sessions, workspaces, members, invites };
}

export type AppUserRecords = ReturnType<typeof appUserRecords>;
