/**
 * The control plane's records (accounts and their passkeys, builders, sessions, tokens, apps, deployments, whose blobs are whose, environment values, app users' sessions and workspaces) in
 * SQLite over sql.js. The whole database is exported and written atomically after every change, so
 * the records on disk are always a committed state and survive a restart.
 */
import { existsSync, readFileSync } from 'node:fs';
import { nodeSqlDriverFactory } from '../adapters/node/sqljs';
import type { SqlValue } from '../core/runtime/sql-driver';
import type { SqlJsDriver } from '../adapters/sqljs/sqljs-driver';
import { writeAtomic } from './files';

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

export class Records {
  readonly #driver: SqlJsDriver;
  readonly #file: string | undefined;
  #depth = 0;

  private constructor(driver: SqlJsDriver, file: string | undefined) {
    this.#driver = driver;
    this.#file = file;
    this.#driver.exec(SCHEMA);
  }

  /** Opens the records kept in `file` (made when absent); without a file, they live in memory only. */
  static async open(file?: string): Promise<Records> {
    const factory = await nodeSqlDriverFactory();
    const bytes = file && existsSync(file) ? new Uint8Array(readFileSync(file)) : undefined;
    const records = new Records(factory(bytes), file);
    records.#persist();
    return records;
  }

  all(sql: string, params: readonly SqlValue[] = []): Row[] {
    return this.#driver.all(sql, params);
  }

  get(sql: string, params: readonly SqlValue[] = []): Row | undefined {
    return this.#driver.all(sql, params)[0];
  }

  /** Runs a change and writes the records to disk (unless inside `transaction`, which writes once at its end). */
  run(sql: string, params: readonly SqlValue[] = []): void {
    this.#driver.exec(sql, params);
    if (this.#depth === 0) this.#persist();
  }

  /** Runs several changes as one: all of them reach the disk, or none. */
  transaction<T>(work: () => T): T {
    if (this.#depth > 0) return work();
    this.#depth++;
    try {
      return this.#driver.transactionSync(work);
    } finally {
      this.#depth--;
      this.#persist();
    }
  }

  #persist(): void {
    if (this.#file) writeAtomic(this.#file, this.#driver.export());
  }

  close(): void {
    this.#driver.close();
  }
}
