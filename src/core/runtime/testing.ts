/**
 * The runtime's conformance suites, for the hosts that run them on their own SQL driver (sql.js in
 * Node, Durable Object SQLite in workerd): the folder's second entry, for tests only, beside `index.ts`.
 */
export { runtimeConformance } from './conformance';
export { storageConformance } from './storage/conformance';
export { tableConformance } from './tables/conformance';
export { queryPlanConformance } from './tables/query-plans';
