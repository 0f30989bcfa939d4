/** The SQL database the runtime runs on, behind one interface (sql.js in Node and in the browser). */

/** A value SQLite stores. */
export type SqlValue = null | number | bigint | string | Uint8Array;

export interface SqlDriver {
  /** Runs statements that return no rows. */
  exec(sql: string, params?: readonly SqlValue[]): void;
  /** Runs a statement and returns its rows as objects keyed by column name. */
  all(sql: string, params?: readonly SqlValue[]): Array<Record<string, SqlValue>>;
  /** Rows changed by the last INSERT, UPDATE or DELETE. */
  changes(): number;
  /** The whole database as an SQLite file. */
  export(): Uint8Array;
  close(): void;
}

/** Makes an empty database, or opens one from an SQLite file's bytes. */
export type SqlDriverFactory = (file?: Uint8Array) => SqlDriver;

/** Quotes an SQL identifier. Names come from the validated manifest, but quoting keeps SQL words safe. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
