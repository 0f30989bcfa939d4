/**
 * What a hosted request needs from the records (the app's lifecycle state, the artifact its
 * environment serves), kept in memory so that serving a request runs no SQL. Every change to the
 * records empties it: the records tell of each change (`watch`), so no change can be forgotten,
 * whichever route, sweep or other control plane process makes it — disable, enable, delete, deploy,
 * promote, rollback, detach, or anything added later. Changes are rare next to hosted requests; the next request reads the records again.
 */
import type { Environment } from '../core/deploy';
import type { AppRecords } from './app-records';
import type { Records } from './records';

export interface Serving {
  /** Undefined: no such app. */
  state?: 'active' | 'disabled' | 'deleted' | 'deleting';
  /** Undefined: nothing deployed to the environment. */
  artifactId?: string;
  /** The node hosting the app (nodes.ts); undefined: this one (a record from before nodes). */
  node?: string;
}

/** The most app environments kept; past it the cache starts again from empty (a flood of unknown hosts cannot grow it). */
const MAX_ENTRIES = 10_000;

export class ServingCache {
  readonly #read: (appId: string, environment: Environment) => Promise<Serving>;
  readonly #entries = new Map<string, Readonly<Serving>>();
  /** Counts the times the cache was emptied: a read that began before one is not kept. */
  #generation = 0;

  constructor(read: (appId: string, environment: Environment) => Promise<Serving>) {
    this.#read = read;
  }

  /** What the records say now about an app's environment. */
  async lookup(appId: string, environment: Environment): Promise<Readonly<Serving>> {
    const key = `${environment}:${appId}`;
    const kept = this.#entries.get(key);
    if (kept) return kept;
    const generation = this.#generation;
    const entry = Object.freeze(await this.#read(appId, environment));
    if (generation === this.#generation) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
      this.#entries.set(key, entry);
    }
    return entry;
  }

  /** Forgets everything: the next lookup of every app reads the records. */
  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }

  /** How many app environments are kept (tests). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Empties the cache on every change to `records`: after each `run` (inside a transaction or not), at
   * the end of each `transaction` (committed or rolled back), also when it throws, and on another
   * process's change to shared records.
   */
  watch(records: Records): void {
    records.onChange(() => this.clear());
  }
}

/** The records a hosted request needs: the app's state and node, and its environment's artifact. */
export async function readServing(apps: AppRecords, appId: string, environment: Environment): Promise<Serving> {
  const placement = await apps.apps.placement(appId);
  const artifactId = await apps.serving.artifact(appId, environment);
  return {
    ...(placement ? { state: placement.state as Serving['state'] } : {}),
    ...(placement?.node ? { node: placement.node } : {}),
    ...(artifactId !== undefined ? { artifactId } : {}),
  };
}
