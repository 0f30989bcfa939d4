/**
 * A workerd worker that runs the runtime conformance suites (runtime, tables, query plans, storage) over the
 * Durable Object SQLite driver, for the Vitest file that starts it: `GET /run?suite=…&case=…` runs one
 * case in a Durable Object of its own (fresh storage) and answers `{ ok }` or `{ ok: false, error }`.
 */
import { runtimeConformance, tableConformance, queryPlanConformance, storageConformance } from '../src/core/runtime/testing';
import type { SqlDriverFactory } from '../src/core/runtime';
import { DurableObjectSqlDriver, type DurableObjectSqlStorage } from '../src/adapters/workerd/durable-object-sql-driver';

const SUITES: Record<string, ReadonlyArray<{ name: string; run(make: SqlDriverFactory): Promise<void> }>> = {
  runtime: runtimeConformance,
  tables: tableConformance,
  plans: queryPlanConformance,
  storage: storageConformance,
};

interface Env {
  STORE: { idFromName(name: string): unknown; get(id: unknown): { fetch(request: Request): Promise<Response> } };
}

export class AppStore {
  readonly #storage: DurableObjectSqlStorage;

  constructor(state: { storage: DurableObjectSqlStorage }) {
    this.#storage = state.storage;
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const testCase = SUITES[url.searchParams.get('suite') ?? '']?.find((c) => c.name === url.searchParams.get('case'));
    if (!testCase) return Response.json({ ok: false, error: 'no such case' }, { status: 404 });
    // Every database a case makes is this object's storage, emptied; reopening keeps it.
    const make = Object.assign(() => new DurableObjectSqlDriver(this.#storage), { reopen: () => new DurableObjectSqlDriver(this.#storage) }) as SqlDriverFactory;
    try {
      await testCase.run(make);
      return Response.json({ ok: true });
    } catch (error) {
      return Response.json({ ok: false, error: error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error) });
    } finally {
      await this.#storage.deleteAll();
    }
  }
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/cases') return Promise.resolve(Response.json(Object.fromEntries(Object.entries(SUITES).map(([suite, cases]) => [suite, cases.map((c) => c.name)]))));
    return env.STORE.get(env.STORE.idFromName(`${url.searchParams.get('suite')}:${url.searchParams.get('case')}`)).fetch(request);
  },
};
