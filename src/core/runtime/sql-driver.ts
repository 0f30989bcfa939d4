/** The SQL database the runtime runs on, behind one interface (sql.js, or a Durable Object's SQLite in workerd). */

/** A value SQLite stores. */
export type SqlValue = null | number | bigint | string | Uint8Array;

export interface TransactionOptions {
  /** Any write inside the transaction fails with "attempt to write a readonly database". */
  readOnly?: boolean;
}

export interface SqlDriver {
  /** Runs statements that return no rows. */
  exec(sql: string, params?: readonly SqlValue[]): void;
  /** Runs a statement and returns its rows as objects keyed by column name. */
  all(sql: string, params?: readonly SqlValue[]): Array<Record<string, SqlValue>>;
  /** Rows changed by the last INSERT, UPDATE or DELETE. */
  changes(): number;
  /**
   * Runs `work` as one transaction: committed when it resolves, rolled back when it rejects (the
   * rejection is passed on). Engines that refuse `BEGIN` (a Durable Object) implement it their way.
   */
  transaction<T>(work: () => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** The same for synchronous work (schema creation). */
  transactionSync<T>(work: () => T): T;
  /**
   * The bytes the database holds now: its pages in use (free pages not counted), the open
   * transaction's writes included. Cheap: read from the engine, not by scanning.
   */
  storedBytes(): number;
  /**
   * The whole database as an SQLite file, where the engine can make one: sql.js can, a Durable
   * Object's storage cannot (it is kept by the engine, not handed around as a file).
   */
  export?(): Uint8Array;
  close(): void;
}

/** Makes an empty database, or opens one from an SQLite file's bytes. */
export interface SqlDriverFactory {
  (file?: Uint8Array): SqlDriver;
  /** Another connection to the same database (engines without `export`: their data is already durable). */
  reopen?(driver: SqlDriver): SqlDriver;
}

/** Quotes an SQL identifier. Names come from the validated manifest, but quoting keeps SQL words safe. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
