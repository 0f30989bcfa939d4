/**
 * A SqlDriver that keeps the statements that changed the database, as they committed: what the
 * playground appends to its durable journal for each call (the cost of a commit follows the change,
 * not the size of the database), and what `replayJournal` applies again on top of a checkpoint.
 *
 * Replaying a call's statements in order on the database they were run against gives the same
 * database: the runtime's SQL has no nondeterministic function (ids and times are JavaScript values
 * bound as parameters), and SQLite's own choices (rowids) depend only on the database.
 */
import type { SqlDriver, SqlValue, TransactionOptions } from './sql-driver.ts';

/** One statement that changed the database, with its bound parameters. */
export type JournalStatement = readonly [sql: string, params: readonly SqlValue[]];

/** What the database committed in one go (one call's transaction, or a start's schema), in order. */
export type JournalBatch = readonly JournalStatement[];

/**
 * A statement that only reads: kept out of the journal. Anything else is kept (a `WITH` that reads
 * too: replaying a read changes nothing, so erring that way costs bytes, never data).
 */
export function isReadOnlyStatement(sql: string): boolean {
  const text = sql.replace(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)+/, '');
  if (/^(SELECT|VALUES|EXPLAIN)\b/i.test(text)) return true;
  return /^PRAGMA\b/i.test(text) && !text.includes('=');
}

export class JournalingDriver implements SqlDriver {
  readonly #inner: SqlDriver;
  /** The open transaction's statements (undefined outside one): kept only if it commits. */
  #open: JournalStatement[] | undefined;
  #committed: JournalStatement[] = [];

  constructor(inner: SqlDriver) {
    this.#inner = inner;
  }

  /** The driver underneath (its writes are not journaled). */
  get inner(): SqlDriver {
    return this.#inner;
  }

  /** Statements committed since the last `take` (or `discard`), in order; they are then forgotten. */
  take(): JournalStatement[] {
    const taken = this.#committed;
    this.#committed = [];
    return taken;
  }

  /** Whether statements committed since the last `take`. */
  get pending(): boolean {
    return this.#committed.length > 0;
  }

  /** Forgets what committed so far (a checkpoint holds it). */
  discard(): void {
    this.#committed = [];
  }

  #record(sql: string, params: readonly SqlValue[]): void {
    (this.#open ?? this.#committed).push([sql, params]);
  }

  exec(sql: string, params: readonly SqlValue[] = []): void {
    this.#inner.exec(sql, params);
    this.#record(sql, params);
  }

  all(sql: string, params: readonly SqlValue[] = []): Array<Record<string, SqlValue>> {
    const rows = this.#inner.all(sql, params);
    if (!isReadOnlyStatement(sql)) this.#record(sql, params);
    return rows;
  }

  changes(): number {
    return this.#inner.changes();
  }

  storedBytes(): number {
    return this.#inner.storedBytes();
  }

  async transaction<T>(work: () => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    // A read-only transaction cannot write: nothing of it is journaled.
    if (options.readOnly) return this.#inner.transaction(work, options);
    const open: JournalStatement[] = [];
    this.#open = open;
    try {
      const result = await this.#inner.transaction(work, options);
      this.#committed.push(...open);
      return result;
    } finally {
      if (this.#open === open) this.#open = undefined;
    }
  }

  transactionSync<T>(work: () => T): T {
    const open: JournalStatement[] = [];
    this.#open = open;
    try {
      const result = this.#inner.transactionSync(work);
      this.#committed.push(...open);
      return result;
    } finally {
      if (this.#open === open) this.#open = undefined;
    }
  }

  export(): Uint8Array {
    if (!this.#inner.export) throw new Error('This engine cannot export its database as a file.');
    return this.#inner.export();
  }

  close(): void {
    this.#inner.close();
  }
}

/** Applies journaled batches in order, each as one transaction, on a database (a checkpoint). */
export function replayJournal(driver: SqlDriver, batches: readonly JournalBatch[]): void {
  for (const batch of batches) {
    if (batch.length === 0) continue;
    driver.transactionSync(() => {
      for (const [sql, params] of batch) driver.exec(sql, params);
    });
  }
}
