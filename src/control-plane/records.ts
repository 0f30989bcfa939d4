/**
 * The control plane's records (accounts and their passkeys, builders, sessions, tokens, apps, deployments, whose blobs are whose, environment values, app users' sessions and workspaces)
 * behind one asynchronous interface with two engines: SQLite in one file with a write-ahead log (the
 * default), and PostgreSQL (`PLATFORM_DATABASE_URL`) when several control plane processes share the
 * records. Either way every change is durable when it returns and survives a kill and a restart.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { SqlValue } from '../core/runtime';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS builders (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, createdAt INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (tokenHash TEXT PRIMARY KEY, builderId TEXT NOT NULL, createdAt INTEGER NOT NULL, revokedAt INTEGER);
CREATE TABLE IF NOT EXISTS devices (deviceHash TEXT PRIMARY KEY, userCode TEXT NOT NULL UNIQUE, createdAt INTEGER NOT NULL, expiresAt INTEGER NOT NULL, state TEXT NOT NULL, builderId TEXT);
CREATE TABLE IF NOT EXISTS service_tokens (id TEXT PRIMARY KEY, tokenHash TEXT NOT NULL UNIQUE, builderId TEXT NOT NULL, name TEXT NOT NULL, createdAt INTEGER NOT NULL, lastUsedAt INTEGER, revokedAt INTEGER);
-- Playgrounds' keys (browser-keys.ts): a P-256 public key bound to a session or service token (by its
-- hash) and to the playground origin that bound it; the private key never leaves that page.
CREATE TABLE IF NOT EXISTS browser_keys (keyId TEXT PRIMARY KEY, publicKey TEXT NOT NULL, origin TEXT NOT NULL, kind TEXT NOT NULL, credentialHash TEXT NOT NULL, builderId TEXT NOT NULL, createdAt INTEGER NOT NULL, revokedAt INTEGER);
CREATE TABLE IF NOT EXISTS apps (id TEXT PRIMARY KEY, name TEXT NOT NULL, ownerId TEXT NOT NULL, state TEXT NOT NULL, createdAt INTEGER NOT NULL, deletedAt INTEGER, teardown TEXT, node TEXT);
-- Hosting nodes (nodes.ts): each control plane process sharing the records, where it is reached; an
-- app's node (apps.node, added to records from before it) hosts its environments.
CREATE TABLE IF NOT EXISTS nodes (name TEXT PRIMARY KEY, address TEXT NOT NULL, seenAt INTEGER NOT NULL);
-- Values every control plane process sharing the records must hold alike (the keys of secrets.ts).
CREATE TABLE IF NOT EXISTS shared_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
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
 * The records. SQL is written once, in the dialect both engines share: `?` placeholders, `ON CONFLICT`,
 * `IS NOT DISTINCT FROM`, camelCase column names (PostgreSQL folds them; its rows come back with the
 * names as written), and `rowid` for the order rows were made in.
 */
export interface Records {
  readonly engine: 'sqlite' | 'postgres';
  all(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  get(sql: string, params?: readonly SqlValue[]): Promise<Row | undefined>;
  /** Runs a change; it is durable when this resolves (unless inside `transaction`, whose end commits them all). */
  run(sql: string, params?: readonly SqlValue[]): Promise<void>;
  /** Deletes the rows of `table` that expired before `before`; nothing is written when none did. */
  removeExpired(table: ExpiringTable, before: number): Promise<void>;
  /** The columns a table has, as written. */
  columns(table: string): Promise<string[]>;
  /**
   * Runs several changes as one: all of them reach the disk, or none. Transactions run one at a time (in
   * every process sharing the records), so a read and the write it decides are not raced; a call to
   * `transaction` inside one joins it.
   */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Calls `listener` after every change: this process's own, as each `run` or `transaction` ends (also
   * when it throws), and with PostgreSQL another process's, as its notice arrives.
   */
  onChange(listener: () => void): void;
  close(): Promise<void>;
}

/** Where the records are: a SQLite file (absent: in memory only), or a PostgreSQL database's URL. */
export type RecordsPlace = { file?: string; databaseUrl?: string };

/**
 * Opens the records. With a database URL they are in PostgreSQL; a SQLite records `file` that exists
 * while the database holds no records yet is copied in first (its migration), and kept as it was.
 */
export async function openRecords(place: RecordsPlace): Promise<Records> {
  if (!place.databaseUrl) return SqliteRecords.open(place.file);
  const records = await PostgresRecords.open(place.databaseUrl);
  try {
    if (place.file && existsSync(place.file) && (await records.isEmpty())) {
      const old = await SqliteRecords.open(place.file);
      try {
        await copyRecords(old, records);
      } finally {
        await old.close();
      }
    }
    return records;
  } catch (error) {
    await records.close();
    throw error;
  }
}

/** Every table's rows, from one records to another (in one transaction of the target). */
export async function copyRecords(from: Records, to: Records): Promise<number> {
  let copied = 0;
  await to.transaction(async () => {
    for (const table of await tablesOf(from)) {
      const target = new Set(await to.columns(table));
      if (target.size === 0) continue;
      const columns = (await from.columns(table)).filter((column) => target.has(column));
      const insert = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ON CONFLICT DO NOTHING`;
      for (const row of await from.all(`SELECT ${columns.join(', ')} FROM ${table} ORDER BY rowid`)) {
        await to.run(insert, columns.map((column) => row[column] ?? null));
        copied++;
      }
    }
  });
  return copied;
}

async function tablesOf(records: Records): Promise<string[]> {
  const rows =
    records.engine === 'sqlite'
      ? await records.all("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      : await records.all("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name");
  return rows.map((row) => String(row.name));
}

/** Deletes the rows of `table` that expired before `before`, the same in both engines: nothing is written when none did. */
async function removeExpired(records: Records, table: ExpiringTable, before: number): Promise<void> {
  if (await records.get(`SELECT 1 FROM ${table} WHERE expiresAt < ?`, [before])) await records.run(`DELETE FROM ${table} WHERE expiresAt < ?`, [before]);
}

/** Calls each listener, a throwing one not stopping the others. */
function notify(listeners: readonly (() => void)[]): void {
  for (const listener of listeners) {
    try {
      listener();
    } catch {
      // A listener's failure is its own.
    }
  }
}

/**
 * The records in SQLite through better-sqlite3, in write-ahead-log mode: a change appends its pages to
 * the log and syncs it (`synchronous = FULL`), so a write costs the same with a hundred records or a
 * million, and a kill at any moment keeps every change that returned. A records file from before (a
 * whole database written by sql.js) is a SQLite file like any other: it opens as it is and turns to WAL
 * mode on its first open, which is all its migration needs.
 *
 * better-sqlite3 is synchronous: a statement runs as it is called. A transaction spans awaits, so while
 * one is open, statements from outside it wait for its end (one connection, one transaction).
 */
class SqliteRecords implements Records {
  readonly engine = 'sqlite';
  readonly #db: Database.Database;
  /** Prepared statements by their text: the control plane runs a small fixed set of them. */
  readonly #statements = new Map<string, Database.Statement>();
  readonly #listeners: (() => void)[] = [];
  /** The transaction open now (its own async context carries the same token), and its end. */
  readonly #context = new AsyncLocalStorage<symbol>();
  #open: { token: symbol; done: Promise<void> } | undefined;

  private constructor(db: Database.Database) {
    this.#db = db;
    this.#db.exec(SCHEMA);
  }

  static async open(file?: string): Promise<SqliteRecords> {
    if (!file) return new SqliteRecords(new Database(':memory:'));
    mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      // Another process holding the write lock for a moment (a second control plane on the same file) is waited for, not an error.
      db.pragma('busy_timeout = 5000');
      return new SqliteRecords(db);
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

  /**
   * The end of a transaction other than the caller's that is open now, if one is. Callers wait for it in
   * a loop of their own and go on in the same turn as the check finds none (an awaited helper would
   * leave a gap in which another transaction could begin).
   */
  #other(): Promise<void> | undefined {
    return this.#open && this.#context.getStore() !== this.#open.token ? this.#open.done : undefined;
  }

  async all(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    for (let other = this.#other(); other; other = this.#other()) await other;
    return this.#statement(sql).all(...params) as Row[];
  }

  async get(sql: string, params: readonly SqlValue[] = []): Promise<Row | undefined> {
    for (let other = this.#other(); other; other = this.#other()) await other;
    return this.#statement(sql).get(...params) as Row | undefined;
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<void> {
    for (let other = this.#other(); other; other = this.#other()) await other;
    try {
      const statement = this.#statement(sql);
      if (statement.reader) statement.all(...params);
      else statement.run(...params);
    } finally {
      notify(this.#listeners);
    }
  }

  removeExpired(table: ExpiringTable, before: number): Promise<void> {
    return removeExpired(this, table, before);
  }

  async columns(table: string): Promise<string[]> {
    return (await this.all('SELECT name FROM pragma_table_info(?)', [table])).map((row) => String(row.name));
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    if (this.#open && this.#context.getStore() === this.#open.token) return work();
    for (let other = this.#other(); other; other = this.#other()) await other;
    const token = Symbol('transaction');
    let end!: () => void;
    this.#open = { token, done: new Promise<void>((resolve) => (end = resolve)) };
    try {
      this.#db.exec('BEGIN IMMEDIATE');
      try {
        const result = await this.#context.run(token, work);
        this.#db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
        throw error;
      }
    } finally {
      this.#open = undefined;
      end();
      notify(this.#listeners);
    }
  }

  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  async close(): Promise<void> {
    for (let other = this.#other(); other; other = this.#other()) await other;
    this.#db.close();
  }
}

/** The channel a PostgreSQL records' change is told on, to the other processes sharing it. */
const CHANGED = 'platform_records_changed';

/** The lock every PostgreSQL records transaction holds (`pg_advisory_xact_lock`): one at a time, as SQLite has it. */
const TRANSACTION_LOCK = 7_316_401;

/** PostgreSQL's `bigint` (timestamps in milliseconds, counts) read as a number: every value the records keep is below 2^53. */
const BIGINT_OID = 20;

/** The SQL of the shared dialect, as PostgreSQL takes it. */
interface Translated {
  text: string;
  /** A folded column name to the name as written. */
  names: Map<string, string>;
}

/** camelCase names written in SQL, by their folded spelling: every column the schema makes is among them. */
const writtenNames = new Map<string, string>();

function translate(sql: string): Translated {
  for (const name of sql.match(/\b[a-z]+[A-Z][A-Za-z0-9]*\b/g) ?? []) writtenNames.set(name.toLowerCase(), name);
  let text = '';
  let n = 0;
  let quoted = false;
  for (const char of sql) {
    if (char === "'") quoted = !quoted;
    text += char === '?' && !quoted ? `$${++n}` : char;
  }
  if (/^\s*(CREATE|ALTER) TABLE/i.test(text)) {
    text = text.replace(/\bINTEGER\b/g, 'BIGINT');
    // The order rows were made in, as SQLite's rowid gives it.
    if (/^\s*CREATE TABLE/i.test(text)) text = text.replace(/\)\s*$/, ', rowid BIGSERIAL)');
  }
  return { text, names: writtenNames };
}

/**
 * The records in PostgreSQL through `pg` (node-postgres): a pool of connections, a change durable when
 * the server acknowledged its commit. Several control plane processes share one database; each tells
 * the others of its changes (`NOTIFY`), so what they keep in memory from the records (the serving
 * cache) is emptied everywhere.
 */
class PostgresRecords implements Records {
  readonly engine = 'postgres';
  readonly #pool: pg.Pool;
  readonly #translated = new Map<string, Translated>();
  readonly #listeners: (() => void)[] = [];
  /** The transaction the caller is in; `live` ends with it (work it started may outlive it). */
  readonly #context = new AsyncLocalStorage<{ client: pg.PoolClient; live: boolean }>();
  #listening: pg.Client | undefined;
  readonly #url: string;

  private constructor(url: string) {
    this.#url = url;
    this.#pool = new pg.Pool({
      connectionString: url,
      max: 10,
      types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === BIGINT_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser },
    });
    // A connection the server ended while idle is dropped by the pool; it is no reason to stop.
    this.#pool.on('error', () => {});
  }

  static async open(url: string): Promise<PostgresRecords> {
    const records = new PostgresRecords(url);
    try {
      await records.transaction(async () => {
        for (const statement of SCHEMA.replace(/--[^\n]*\n/g, '').split(';')) if (statement.trim()) await records.run(statement);
      });
      await records.#listen();
      return records;
    } catch (error) {
      await records.close();
      throw error;
    }
  }

  /**
   * Listens for other processes' changes. A listening connection that ends (the server restarted) is made
   * again, every second until it is; the listeners are told once it is back, since changes while it was
   * gone were not.
   */
  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url });
    let lost = false;
    const again = () => {
      if (lost || this.#closed) return;
      lost = true;
      client.end().catch(() => {});
      const retry = () => {
        if (this.#closed) return;
        this.#listen().then(
          () => notify(this.#listeners),
          () => setTimeout(retry, 1000).unref(),
        );
      };
      setTimeout(retry, 1000).unref();
    };
    client.on('error', again);
    client.on('end', again);
    client.on('notification', () => notify(this.#listeners));
    await client.connect();
    await client.query(`LISTEN ${CHANGED}`);
    this.#listening = client;
  }

  #closed = false;

  /** Whether the database holds no records yet (a first start). */
  async isEmpty(): Promise<boolean> {
    for (const table of ['builders', 'accounts', 'apps']) if (await this.get(`SELECT 1 FROM ${table} LIMIT 1`)) return false;
    return true;
  }

  async #query(sql: string, params: readonly SqlValue[]): Promise<Row[]> {
    let translated = this.#translated.get(sql);
    if (!translated) {
      translated = translate(sql);
      this.#translated.set(sql, translated);
    }
    const client = this.#inside() ?? this.#pool;
    const result = await client.query(translated.text, params as unknown[]);
    return result.rows.map((row: Record<string, SqlValue>) => {
      const named: Row = {};
      for (const [key, value] of Object.entries(row)) if (key !== 'rowid') named[translated.names.get(key) ?? key] = value;
      return named;
    });
  }

  async all(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    return this.#query(sql, params);
  }

  async get(sql: string, params: readonly SqlValue[] = []): Promise<Row | undefined> {
    return (await this.#query(sql, params))[0];
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<void> {
    try {
      await this.#query(sql, params);
      if (!this.#inside()) await this.#pool.query(`NOTIFY ${CHANGED}`);
    } finally {
      notify(this.#listeners);
    }
  }

  removeExpired(table: ExpiringTable, before: number): Promise<void> {
    return removeExpired(this, table, before);
  }

  async columns(table: string): Promise<string[]> {
    const rows = await this.all('SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position', [table]);
    return rows.map((row) => String(row.name)).filter((name) => name !== 'rowid').map((name) => writtenNames.get(name) ?? name);
  }

  #inside(): pg.PoolClient | undefined {
    const open = this.#context.getStore();
    return open?.live ? open.client : undefined;
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    if (this.#inside()) return work();
    const client = await this.#pool.connect();
    const open = { client, live: true };
    try {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [TRANSACTION_LOCK]);
        const result = await this.#context.run(open, work);
        await client.query(`NOTIFY ${CHANGED}`);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    } finally {
      open.live = false;
      client.release();
      notify(this.#listeners);
    }
  }

  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#listening?.end().catch(() => {});
    await this.#pool.end();
  }
}
