/**
 * The control plane's records (accounts and their passkeys, builders, sessions, tokens, apps, deployments, whose blobs are whose, environment values, app users' sessions and workspaces) in
 * SQLite, kept in one file with a write-ahead log: every change is durable when it returns and survives
 * a kill and a restart.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { SqlValue } from '../core/runtime/sql-driver';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS builders (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, createdAt INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (tokenHash TEXT PRIMARY KEY, builderId TEXT NOT NULL, createdAt INTEGER NOT NULL, revokedAt INTEGER);
CREATE TABLE IF NOT EXISTS devices (deviceHash TEXT PRIMARY KEY, userCode TEXT NOT NULL UNIQUE, createdAt INTEGER NOT NULL, expiresAt INTEGER NOT NULL, state TEXT NOT NULL, builderId TEXT);
CREATE TABLE IF NOT EXISTS service_tokens (id TEXT PRIMARY KEY, tokenHash TEXT NOT NULL UNIQUE, builderId TEXT NOT NULL, name TEXT NOT NULL, createdAt INTEGER NOT NULL, lastUsedAt INTEGER, revokedAt INTEGER);
-- Playgrounds' keys (browser-keys.ts): a P-256 public key bound to a session or service token (by its
-- hash) and to the playground origin that bound it; the private key never leaves that page.
CREATE TABLE IF NOT EXISTS browser_keys (keyId TEXT PRIMARY KEY, publicKey TEXT NOT NULL, origin TEXT NOT NULL, kind TEXT NOT NULL, credentialHash TEXT NOT NULL, builderId TEXT NOT NULL, createdAt INTEGER NOT NULL, revokedAt INTEGER);
CREATE TABLE IF NOT EXISTS apps (id TEXT PRIMARY KEY, name TEXT NOT NULL, ownerId TEXT NOT NULL, state TEXT NOT NULL, createdAt INTEGER NOT NULL, deletedAt INTEGER, teardown TEXT);
CREATE TABLE IF NOT EXISTS deployments (id TEXT PRIMARY KEY, appId TEXT NOT NULL, builderId TEXT NOT NULL, environment TEXT NOT NULL, artifactId TEXT NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL, createdAt INTEGER NOT NULL, receiptId TEXT UNIQUE, errorCode TEXT, errorMessage TEXT);
CREATE INDEX IF NOT EXISTS deployments_by_app ON deployments (appId, createdAt);
CREATE INDEX IF NOT EXISTS deployments_by_builder ON deployments (builderId, createdAt);
CREATE TABLE IF NOT EXISTS serving (appId TEXT NOT NULL, environment TEXT NOT NULL, artifactId TEXT NOT NULL, deploymentId TEXT NOT NULL, PRIMARY KEY (appId, environment));
CREATE TABLE IF NOT EXISTS stores (appId TEXT NOT NULL, environment TEXT NOT NULL, state TEXT NOT NULL, PRIMARY KEY (appId, environment));
CREATE TABLE IF NOT EXISTS blob_owners (builderId TEXT NOT NULL, sha256 TEXT NOT NULL, PRIMARY KEY (builderId, sha256));
CREATE TABLE IF NOT EXISTS env_values (appId TEXT NOT NULL, scope TEXT NOT NULL, name TEXT NOT NULL, sealed TEXT NOT NULL, updatedAt INTEGER NOT NULL, PRIMARY KEY (appId, scope, name));
-- Accounts are people (docs/control-plane.md, Accounts and passkeys): a name, the WebAuthn user handle
-- their passkeys carry, and the builder they are once granted builder status (builders.id, bld_…).
CREATE TABLE IF NOT EXISTS accounts (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, userHandle TEXT NOT NULL UNIQUE, createdAt INTEGER NOT NULL, builderId TEXT UNIQUE, builderSince INTEGER);
CREATE TABLE IF NOT EXISTS passkeys (credentialId TEXT PRIMARY KEY, accountId TEXT NOT NULL, publicKey TEXT NOT NULL, counter INTEGER NOT NULL, transports TEXT NOT NULL, deviceType TEXT NOT NULL, backedUp INTEGER NOT NULL, createdAt INTEGER NOT NULL, lastUsedAt INTEGER);
CREATE INDEX IF NOT EXISTS passkeys_by_account ON passkeys (accountId, createdAt);
CREATE TABLE IF NOT EXISTS account_sessions (tokenHash TEXT PRIMARY KEY, accountId TEXT NOT NULL, createdAt INTEGER NOT NULL, expiresAt INTEGER NOT NULL, revokedAt INTEGER);
-- People signed in to hosted apps (docs/control-plane.md, Signing in to hosted apps): one-time codes the
-- control plane hands back to an app origin, the app sessions they become (per app and environment), and
-- workspaces of an app environment with their members and invitations. Codes, sessions and invitations
-- are kept as SHA-256 hashes only.
CREATE TABLE IF NOT EXISTS app_sign_in_codes (codeHash TEXT PRIMARY KEY, accountId TEXT NOT NULL, appId TEXT NOT NULL, environment TEXT NOT NULL, stateHash TEXT NOT NULL, createdAt INTEGER NOT NULL, expiresAt INTEGER NOT NULL, usedAt INTEGER, sessionHash TEXT);
CREATE TABLE IF NOT EXISTS app_sessions (tokenHash TEXT PRIMARY KEY, id TEXT NOT NULL UNIQUE, accountId TEXT NOT NULL, appId TEXT NOT NULL, environment TEXT NOT NULL, createdAt INTEGER NOT NULL, expiresAt INTEGER NOT NULL, revokedAt INTEGER);
CREATE TABLE IF NOT EXISTS workspaces (id TEXT PRIMARY KEY, appId TEXT NOT NULL, environment TEXT NOT NULL, name TEXT NOT NULL, createdBy TEXT NOT NULL, createdAt INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS workspace_members (workspaceId TEXT NOT NULL, accountId TEXT NOT NULL, joinedAt INTEGER NOT NULL, PRIMARY KEY (workspaceId, accountId));
CREATE INDEX IF NOT EXISTS workspace_members_by_account ON workspace_members (accountId, joinedAt);
CREATE TABLE IF NOT EXISTS workspace_invites (tokenHash TEXT PRIMARY KEY, workspaceId TEXT NOT NULL, invitedBy TEXT NOT NULL, createdAt INTEGER NOT NULL, expiresAt INTEGER NOT NULL, usedAt INTEGER, usedBy TEXT);
CREATE INDEX IF NOT EXISTS workspace_invites_by_workspace ON workspace_invites (workspaceId, expiresAt);
`;

export type Row = Record<string, SqlValue>;

/** The records that expire (an `expiresAt` column) and are purged once past it. */
export type ExpiringTable = 'devices' | 'account_sessions' | 'app_sign_in_codes' | 'app_sessions';

/**
 * The records in SQLite through better-sqlite3, in write-ahead-log mode: a change appends its pages to
 * the log and syncs it (`synchronous = FULL`), so a write costs the same with a hundred records or a
 * million, and a kill at any moment keeps every change that returned. A records file from before (a
 * whole database written by sql.js) is a SQLite file like any other: it opens as it is and turns to WAL
 * mode on its first open, which is all its migration needs.
 */
export class Records {
  readonly #db: Database.Database;
  /** Prepared statements by their text: the control plane runs a small fixed set of them. */
  readonly #statements = new Map<string, Database.Statement>();
  #depth = 0;

  private constructor(db: Database.Database) {
    this.#db = db;
    this.#db.exec(SCHEMA);
  }

  /** Opens the records kept in `file` (made when absent); without a file, they live in memory only. */
  static async open(file?: string): Promise<Records> {
    if (!file) return new Records(new Database(':memory:'));
    mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      // Another process holding the write lock for a moment (a second control plane on the same file) is waited for, not an error.
      db.pragma('busy_timeout = 5000');
      return new Records(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  #statement(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  all(sql: string, params: readonly SqlValue[] = []): Row[] {
    return this.#statement(sql).all(...params) as Row[];
  }

  get(sql: string, params: readonly SqlValue[] = []): Row | undefined {
    return this.#statement(sql).get(...params) as Row | undefined;
  }

  /** Runs a change; it is on disk when this returns (unless inside `transaction`, whose end commits them all). */
  run(sql: string, params: readonly SqlValue[] = []): void {
    const statement = this.#statement(sql);
    if (statement.reader) statement.all(...params);
    else statement.run(...params);
  }

  /** Deletes the rows of `table` that expired before `before`; nothing is written when none did. */
  removeExpired(table: ExpiringTable, before: number): void {
    if (this.get(`SELECT 1 FROM ${table} WHERE expiresAt < ?`, [before])) this.run(`DELETE FROM ${table} WHERE expiresAt < ?`, [before]);
  }

  /** Runs several changes as one: all of them reach the disk, or none. */
  transaction<T>(work: () => T): T {
    if (this.#depth > 0) return work();
    this.#depth++;
    try {
      return this.#db.transaction(work)();
    } finally {
      this.#depth--;
    }
  }

  close(): void {
    this.#db.close();
  }
}
