/**
 * What a hosted request needs from the records (the app's lifecycle state, the artifact its
 * environment serves), kept in memory so that serving a request runs no SQL. Every change to the
 * records empties it: the records are wrapped (`watch`), so no change can be forgotten, whichever
 * route or sweep makes it — disable, enable, delete, deploy, promote, rollback, detach, or anything
 * added later. Changes are rare next to hosted requests; the next request reads the records again.
 */
import type { Environment } from '../core/deploy/ids';
import type { AppRecords } from './app-records';
import type { Records } from './records';

export interface Serving {
  /** Undefined: no such app. */
  state?: 'active' | 'disabled' | 'deleted' | 'deleting';
  /** Undefined: nothing deployed to the environment. */
  artifactId?: string;
}

/** The most app environments kept; past it the cache starts again from empty (a flood of unknown hosts cannot grow it). */
const MAX_ENTRIES = 10_000;

export class ServingCache {
  readonly #read: (appId: string, environment: Environment) => Serving;
  readonly #entries = new Map<string, Readonly<Serving>>();

  constructor(read: (appId: string, environment: Environment) => Serving) {
    this.#read = read;
  }

  /** What the records say now about an app's environment. */
  lookup(appId: string, environment: Environment): Readonly<Serving> {
    const key = `${environment}:${appId}`;
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = Object.freeze(this.#read(appId, environment));
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
      this.#entries.set(key, entry);
    }
    return entry;
  }

  /** Forgets everything: the next lookup of every app reads the records. */
  clear(): void {
    this.#entries.clear();
  }

  /** How many app environments are kept (tests). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Empties the cache on every change to `records`: after each `run` (inside a transaction or not)
   * and at the end of each `transaction` (committed or rolled back), also when it throws.
   */
  watch(records: Records): void {
    const run = records.run.bind(records);
    const transaction = records.transaction.bind(records);
    records.run = (sql, params) => {
      try {
        run(sql, params);
      } finally {
        this.clear();
      }
    };
    records.transaction = <T>(work: () => T): T => {
      try {
        return transaction(work);
      } finally {
        this.clear();
      }
    };
  }
}

/** The two records a hosted request needs: the app's state and its environment's artifact. */
export function readServing(apps: AppRecords, appId: string, environment: Environment): Serving {
  const state = apps.apps.state(appId);
  const artifactId = apps.serving.artifact(appId, environment);
  return {
    ...(state !== undefined ? { state: state as Serving['state'] } : {}),
    ...(artifactId !== undefined ? { artifactId } : {}),
  };
}
