/**
 * The driver one handler call sees. Closed when the call ends, so a handler still running after its
 * deadline (or after a rollback) cannot touch the database outside its transaction.
 */
import type { SqlDriver, SqlValue } from './sql-driver.ts';

export class ScopedDriver implements SqlDriver {
  readonly #driver: SqlDriver;
  #open = true;

  constructor(driver: SqlDriver) {
    this.#driver = driver;
  }

  close(): void {
    this.#open = false;
  }

  #check(): void {
    if (!this.#open) throw new Error('This handler call has already ended; its context can no longer be used.');
  }

  exec(sql: string, params?: readonly SqlValue[]): void {
    this.#check();
    this.#driver.exec(sql, params);
  }

  all(sql: string, params?: readonly SqlValue[]): Array<Record<string, SqlValue>> {
    this.#check();
    return this.#driver.all(sql, params);
  }

  changes(): number {
    return this.#driver.changes();
  }

  storedBytes(): number {
    return this.#driver.storedBytes();
  }

  transaction<T>(): Promise<T> {
    throw new Error('A handler runs inside its call\'s transaction; it cannot open another.');
  }

  transactionSync<T>(): T {
    throw new Error('A handler runs inside its call\'s transaction; it cannot open another.');
  }
}
