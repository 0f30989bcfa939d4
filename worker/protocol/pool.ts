/**
 * What the control plane and a pooled workerd process's host worker (worker/workerd-pool.ts) say to
 * each other: the headers naming a request's environment and lease, the host's own paths (the pool's
 * token required), and the lease record the control plane's source answers.
 */

/** What the pool's headers begin with: the hosting drops a visitor's. */
export const POOL_HEADER_PREFIX = 'x-platform-pool-';
/** The environment a request is for (its data is named after it). */
export const TENANT_HEADER = `${POOL_HEADER_PREFIX}tenant`;
/** The lease a request belongs to: the modules and the START record the source gave it. */
export const VERSION_HEADER = `${POOL_HEADER_PREFIX}version`;
/** The host object's id of an environment (its facet's files are named after it). */
export const ID_PATH = '/__pool/id';
/** Deletes an environment's data (its facet and its files). */
export const DELETE_PATH = '/__pool/delete';
/** An environment's lease was given back (it sleeps): its isolate is let go, its memory returned to the process. */
export const RELEASE_PATH = '/__pool/release';
/** The source's path: `?tenant=…&version=…`, answered with a `LeaseRecord` or 404. */
export const LEASE_PATH = '/lease';

/** A lease: the trusted entry, the app's server bundle and the `START` record (with the lease's identity key). */
export interface LeaseRecord {
  entry: string;
  app: string;
  start: string;
}
