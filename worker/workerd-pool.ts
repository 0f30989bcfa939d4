/**
 * The trusted host worker of a pooled workerd process (src/adapters/workerd/pool.ts): many app
 * environments in one process, each its own isolate loaded at run time through the Worker Loader
 * binding, with no network (`globalOutbound = null`) and no binding but its `START` record, and its
 * data in SQLite of its own: the environment's `AppStore` (worker/workerd-app.ts, the same trusted
 * entry a process of its own runs) is a facet of one host Durable Object per environment.
 *
 * A request names its environment (`x-platform-pool-tenant`) and the lease it belongs to
 * (`x-platform-pool-version`); the host object asks the control plane's source (the `SOURCE` binding,
 * with the process's `TOKEN`) for that lease's modules and `START` record, never a request's headers:
 * a local process that reaches this port can name an environment, not give it code or keys. Every
 * request still needs an identity the control plane signed with the lease's key (workerd-app.ts).
 */
import { LOADED_PATH } from '../src/core/host';
import { ADMIN_PATH } from '../src/core/local';
import { INSPECT_PREFIX } from './protocol/inspection';
import { DELETE_PATH, ID_PATH, LEASE_PATH, RELEASE_PATH, TENANT_HEADER, VERSION_HEADER, type LeaseRecord } from './protocol/pool';

interface LoadedWorker {
  getEntrypoint(): { fetch(request: Request): Promise<Response> };
  getDurableObjectClass(name: string): unknown;
}

interface Env {
  LOADER: { get(id: string, code: () => Promise<unknown>): LoadedWorker };
  SOURCE: { fetch(request: Request | string, init?: RequestInit): Promise<Response> };
  TOKEN: string;
  TENANT: { idFromName(name: string): { toString(): string }; get(id: unknown): { fetch(request: Request): Promise<Response> } };
}

interface Facets {
  get(name: string, options: () => { class: unknown }): { fetch(request: Request): Promise<Response> };
  abort(name: string, reason: unknown): void;
  delete(name: string): void;
}

/**
 * V8's full collection, exposed to the pool's process (`--expose-gc`) for the trusted entries; this
 * host takes it too. The pages of a state export and the batches of an import (megabytes each) pass
 * through this isolate on their way to and from an environment's facet: collected before the next
 * passes, this isolate holds at most one, not what V8 lets pile up between collections.
 */
const collectGarbage = (globalThis as { gc?: () => void }).gc;

const unavailable = (message: string) => Response.json({ error: { code: 'app_unavailable', message } }, { status: 503 });

function authorized(request: Request, env: Env): boolean {
  return env.TOKEN.length > 0 && request.headers.get('authorization') === `Bearer ${env.TOKEN}`;
}

export class Tenant {
  readonly #facets: Facets;
  readonly #env: Env;
  /** The lease whose `AppStore` runs as this object's facet now. */
  #version: string | undefined;
  /** Lease records asked of the source, by version (the current one kept). */
  readonly #records = new Map<string, Promise<LeaseRecord | undefined>>();

  constructor(state: { facets: Facets }, env: Env) {
    this.#facets = state.facets;
    this.#env = env;
  }

  async fetch(request: Request): Promise<Response> {
    const facets = this.#facets;
    const url = new URL(request.url);
    if (url.pathname === RELEASE_PATH) {
      if (!authorized(request, this.#env)) return new Response(null, { status: 403 });
      // Only the lease given back: a newer one of the same environment goes on.
      if (this.#version !== undefined && this.#version === request.headers.get(VERSION_HEADER)) {
        facets.abort('app', new Error('The environment sleeps.'));
        this.#version = undefined;
        this.#records.clear();
      }
      return new Response(null, { status: 204 });
    }
    if (url.pathname === DELETE_PATH) {
      if (!authorized(request, this.#env)) return new Response(null, { status: 403 });
      if (this.#version !== undefined) facets.abort('app', new Error('The environment was deleted.'));
      facets.delete('app');
      this.#version = undefined;
      this.#records.clear();
      return new Response(null, { status: 204 });
    }
    const tenant = request.headers.get(TENANT_HEADER) ?? '';
    const version = request.headers.get(VERSION_HEADER) ?? '';
    if (!version) return unavailable('The request names no lease.');
    const record = await this.#record(tenant, version);
    if (!record) return unavailable('The environment is not leased to this process.');
    const worker = this.#env.LOADER.get(`${tenant}@${version}`, async () => ({
      compatibilityDate: '2025-09-01',
      mainModule: 'entry.js',
      modules: { 'entry.js': record.entry, 'app.js': record.app },
      env: { START: record.start },
      globalOutbound: null,
    }));
    // Whether the module loaded, answered by the entry without opening the data.
    if (url.pathname === LOADED_PATH) return worker.getEntrypoint().fetch(request);
    if (this.#version !== version) {
      // A new lease (a new artifact, new values, a new key): the facet restarts with its class, on the same data.
      if (this.#version !== undefined) facets.abort('app', new Error('The environment was restarted.'));
      for (const kept of this.#records.keys()) if (kept !== version) this.#records.delete(kept);
      this.#version = version;
    }
    const facet = facets.get('app', () => ({ class: worker.getDurableObjectClass('AppStore') }));
    if (url.pathname === ADMIN_PATH || url.pathname.startsWith(INSPECT_PREFIX)) collectGarbage?.();
    // The pool's headers go with it: the trusted entry takes them off before the app sees the request.
    return facet.fetch(request);
  }

  #record(tenant: string, version: string): Promise<LeaseRecord | undefined> {
    let record = this.#records.get(version);
    if (!record) {
      const asked = this.#env.SOURCE.fetch(`http://source${LEASE_PATH}?tenant=${encodeURIComponent(tenant)}&version=${encodeURIComponent(version)}`, { headers: { authorization: `Bearer ${this.#env.TOKEN}` } });
      record = asked.then((answer) => (answer.ok ? (answer.json() as Promise<LeaseRecord>) : undefined)).catch(() => undefined);
      // A refusal is not kept: the lease may be registered a moment later.
      void record.then((found) => {
        if (!found && this.#records.get(version) === record) this.#records.delete(version);
      });
      this.#records.set(version, record);
    }
    return record;
  }
}

/** Host object ids by environment, made once (a hash of the name). */
const ids = new Map<string, { toString(): string }>();

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const tenant = request.headers.get(TENANT_HEADER);
    if (!tenant) return unavailable('The request names no environment.');
    let id = ids.get(tenant);
    if (!id) {
      if (ids.size >= 10_000) ids.clear();
      id = env.TENANT.idFromName(tenant);
      ids.set(tenant, id);
    }
    if (new URL(request.url).pathname === ID_PATH) {
      if (!authorized(request, env)) return new Response(null, { status: 403 });
      return Response.json({ id: id.toString() });
    }
    return env.TENANT.get(id).fetch(request);
  },
};
