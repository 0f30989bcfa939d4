/**
 * The runtime host's listeners (runtime-host.ts): what it tells the page (writes, restarts, faults,
 * reports, activity) and what it hands over to persist (commits). A listener that throws is reported and
 * does not stop the others.
 */
import type { Commit } from './durable-log';

/** How a listener's error is reported: the browser's `reportError` by default (an uncaught error that does not stop the caller). */
export type ReportError = (error: unknown) => void;

const defaultReport: ReportError = (error) => reportError(error);

/** Listeners of one event, called in the order they were added. */
export class Listeners<A extends unknown[]> {
  readonly #listeners = new Set<(...args: A) => void>();
  readonly #report: ReportError;

  constructor(report: ReportError = defaultReport) {
    this.#report = report;
  }

  /** Adds `listener`; returns the function that removes it. */
  add(listener: (...args: A) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(...args: A): void {
    for (const listener of this.#listeners) {
      try {
        listener(...args);
      } catch (error) {
        this.#report(error);
      }
    }
  }
}

/**
 * Commits handed to the listeners that persist them, and the promise answers wait for. What a listener
 * returns for a journal batch joins that promise: a call's answer goes out only once its batch is
 * durable. A checkpoint is written in the background: no answer waits for it, and its failure is reported.
 */
export class CommitListeners {
  readonly #listeners = new Set<(commit: Commit) => void | Promise<void>>();
  readonly #report: ReportError;
  #durable: Promise<void> = Promise.resolve();

  constructor(report: ReportError = defaultReport) {
    this.#report = report;
  }

  /** Adds `listener`; returns the function that removes it. */
  add(listener: (commit: Commit) => void | Promise<void>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Hands `commit` to the listeners. */
  persist(commit: Commit): void {
    const pending: Promise<unknown>[] = [this.#durable];
    for (const listener of this.#listeners) {
      try {
        const result = listener(commit);
        if (result && commit.kind === 'checkpoint') result.catch((error: unknown) => this.#report(error));
        else if (result) pending.push(result.catch((error: unknown) => this.#report(error)));
      } catch (error) {
        this.#report(error);
      }
    }
    this.#durable = pending.length > 1 ? Promise.all(pending).then(() => undefined) : this.#durable;
  }

  /** Runs `answer` once every commit handed over so far is durable (at once, in order, when none is pending). */
  afterDurable(answer: () => void): Promise<void> {
    return this.#durable.then(answer);
  }
}
