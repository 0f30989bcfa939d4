/**
 * The SqlDriver over a SQLite-backed Durable Object's storage (`ctx.storage.sql`) in workerd. SQL
 * `BEGIN` is refused there, so transactions go through `storage.transaction` / `transactionSync`;
 * `PRAGMA query_only` is refused too, so a read-only transaction is enforced here: only reading
 * statements run, and one that wrote anyway fails (and rolls its transaction back).
 *
 * A read-only transaction opens none of workerd's: `storage.transaction` cost about a quarter of a
 * millisecond of the isolate's thread for each query (`npm run bench -- front-door`), more than the
 * query's SQL. What it gave a read is given otherwise: the runtime runs calls one at a time, so
 * nothing writes between a call's reads, and a lone SELECT cannot write; any other reading statement (a
 * `WITH` may end in a DELETE, a string may hold a second statement) runs in a savepoint of its own
 * (`transactionSync`), which a write rolls back.
 */
import type { SqlDriver, SqlValue, TransactionOptions } from '../../core/runtime';

/** The parts of workerd's `DurableObjectStorage` this driver uses. */
export interface DurableObjectSqlStorage {
  sql: {
    exec(query: string, ...bindings: unknown[]): { toArray(): Array<Record<string, unknown>>; readonly rowsWritten: number };
    /** The database's size in bytes, an open transaction's writes included (its page count and free pages are not readable by PRAGMA there). */
    readonly databaseSize: number;
  };
  transaction<T>(closure: () => Promise<T>): Promise<T>;
  transactionSync<T>(closure: () => T): T;
  deleteAll(): Promise<void>;
}

const READING = /^\s*(?:SELECT|WITH|VALUES|EXPLAIN)\b/i;
/**
 * One SELECT and nothing after it: SQLite runs it without writing. The string may hold no other
 * statement (`exec` runs every one it holds: `SELECT 1; DELETE …`), so it has no `;` but a last one.
 */
const SELECTING = /^\s*SELECT\b[^;]*;?\s*$/i;
const READ_ONLY = 'attempt to write a readonly database';

function toParam(value: SqlValue): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  return value;
}

function toValue(value: unknown): SqlValue {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return value as SqlValue;
}

export class DurableObjectSqlDriver implements SqlDriver {
  readonly #storage: DurableObjectSqlStorage;
  #readOnly = false;
  #inTransaction = false;

  constructor(storage: DurableObjectSqlStorage) {
    this.#storage = storage;
  }

  #run(sql: string, params: readonly SqlValue[]): Array<Record<string, SqlValue>> {
    if (this.#readOnly && !READING.test(sql)) throw new Error(READ_ONLY);
    // Read-only outside a transaction of workerd's (see above): a statement that might write is rolled back by its own savepoint.
    if (this.#readOnly && !SELECTING.test(sql)) return this.#storage.transactionSync(() => this.#exec(sql, params));
    return this.#exec(sql, params);
  }

  #exec(sql: string, params: readonly SqlValue[]): Array<Record<string, SqlValue>> {
    const cursor = this.#storage.sql.exec(sql, ...params.map(toParam));
    const rows = cursor.toArray();
    if (this.#readOnly && cursor.rowsWritten > 0) throw new Error(READ_ONLY);
    // The rows are workerd's own fresh objects: only a blob (an ArrayBuffer) is replaced in place, by its bytes.
    for (const row of rows) {
      for (const name in row) if (row[name] instanceof ArrayBuffer) row[name] = toValue(row[name]);
    }
    return rows as Array<Record<string, SqlValue>>;
  }

  exec(sql: string, params: readonly SqlValue[] = []): void {
    this.#run(sql, params);
  }

  all(sql: string, params: readonly SqlValue[] = []): Array<Record<string, SqlValue>> {
    return this.#run(sql, params);
  }

  changes(): number {
    return Number(this.#storage.sql.exec('SELECT changes() AS n').toArray()[0]?.['n'] ?? 0);
  }

  storedBytes(): number {
    return this.#storage.sql.databaseSize;
  }

  async transaction<T>(work: () => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    if (this.#inTransaction) throw new Error('A transaction is already open on this database.');
    this.#inTransaction = true;
    this.#readOnly = options.readOnly === true;
    try {
      return this.#readOnly ? await work() : await this.#storage.transaction(work);
    } finally {
      this.#readOnly = false;
      this.#inTransaction = false;
    }
  }

  transactionSync<T>(work: () => T): T {
    return this.#storage.transactionSync(work);
  }

  close(): void {
    // The engine owns the database; there is nothing to close.
  }
}
