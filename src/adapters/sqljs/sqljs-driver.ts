/** The SqlDriver over sql.js (SQLite compiled to wasm), the same in Node and in the browser. */
import type { Database, SqlJsStatic } from 'sql.js';
import type { SqlDriver, SqlDriverFactory, SqlValue, TransactionOptions } from '../../core/runtime';

export class SqlJsDriver implements SqlDriver {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
    // Foreign keys are off by default in SQLite; the manifest's ref actions need them.
    this.#db.exec('PRAGMA foreign_keys = ON');
  }

  exec(sql: string, params: readonly SqlValue[] = []): void {
    if (params.length === 0) this.#db.exec(sql);
    else this.#db.run(sql, params as SqlValue[] as never);
  }

  all(sql: string, params: readonly SqlValue[] = []): Array<Record<string, SqlValue>> {
    const statement = this.#db.prepare(sql);
    try {
      statement.bind(params as never);
      const rows: Array<Record<string, SqlValue>> = [];
      while (statement.step()) rows.push(statement.getAsObject() as Record<string, SqlValue>);
      return rows;
    } finally {
      statement.free();
    }
  }

  changes(): number {
    return this.#db.getRowsModified();
  }

  storedBytes(): number {
    const [row] = this.all('SELECT (SELECT page_count FROM pragma_page_count()) - (SELECT freelist_count FROM pragma_freelist_count()) AS pages, (SELECT page_size FROM pragma_page_size()) AS size');
    return Number(row!['pages']) * Number(row!['size']);
  }

  async transaction<T>(work: () => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    this.#db.exec('BEGIN');
    if (options.readOnly) this.#db.exec('PRAGMA query_only = ON');
    try {
      const result = await work();
      if (options.readOnly) this.#db.exec('PRAGMA query_only = OFF');
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      this.#db.exec('ROLLBACK');
      if (options.readOnly) this.#db.exec('PRAGMA query_only = OFF');
      throw error;
    }
  }

  transactionSync<T>(work: () => T): T {
    this.#db.exec('BEGIN');
    try {
      const result = work();
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  export(): Uint8Array {
    return this.#db.export();
  }

  close(): void {
    this.#db.close();
  }
}

/** Opens sql.js databases; its drivers can export their file. */
export interface SqlJsFactory extends SqlDriverFactory {
  (file?: Uint8Array): SqlJsDriver;
}

export function sqlJsFactory(SQL: SqlJsStatic): SqlJsFactory {
  return (file) => new SqlJsDriver(file ? new SQL.Database(file) : new SQL.Database());
}
