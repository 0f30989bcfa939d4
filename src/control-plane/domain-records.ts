/**
 * The records of custom domains (docs/control-plane.md, Custom domains), as small repositories: the
 * attached domains, and the claims on them (pending until their verification record is published,
 * taken over by another builder's proof before then). The `domains` table is made here too. The SQL
 * lives here, not in domains.ts. Rows are the records' rows.
 */
import type { Records, Row } from './records';

export function domainRecords(records: Records) {
  const domains = {
    /** Makes the `domains` table and its index by builder when absent: run once, before any other method. */
    ensureSchema: async (): Promise<void> => {
      await records.run('CREATE TABLE IF NOT EXISTS domains (hostname TEXT PRIMARY KEY, appId TEXT NOT NULL, builderId TEXT NOT NULL, state TEXT NOT NULL, token TEXT NOT NULL, createdAt INTEGER NOT NULL, verifiedAt INTEGER)');
      await records.run('CREATE INDEX IF NOT EXISTS domains_by_builder ON domains (builderId, createdAt)');
    },
    get: (hostname: string): Promise<Row | undefined> => records.get('SELECT * FROM domains WHERE hostname = ?', [hostname]),
    /** Every attached hostname with its app and state: what routing reads. */
    routes: (): Promise<Row[]> => records.all('SELECT hostname, appId, state FROM domains'),
    /** A builder's domains, oldest first. */
    ofBuilder: (builderId: string): Promise<Row[]> => records.all('SELECT * FROM domains WHERE builderId = ? ORDER BY createdAt, hostname', [builderId]),
    /** A builder's domains of one app, oldest first. */
    ofBuilderApp: (builderId: string, appId: string): Promise<Row[]> => records.all('SELECT * FROM domains WHERE builderId = ? AND appId = ? ORDER BY createdAt, hostname', [builderId, appId]),
    /** How many domains a builder holds, whatever their state. */
    countOf: async (builderId: string): Promise<number> => Number((await records.get('SELECT COUNT(*) AS n FROM domains WHERE builderId = ?', [builderId]))?.n ?? 0),
    /** Detached from routing, its release at the provider still to finish. */
    markCleanupPending: (hostname: string): Promise<void> => records.run("UPDATE domains SET state = 'cleanup_pending' WHERE hostname = ?", [hostname]),
    remove: (hostname: string): Promise<void> => records.run('DELETE FROM domains WHERE hostname = ?', [hostname]),
  };

  const claims = {
    /** A new claim, pending until its record is published. */
    insertPending: (claim: { hostname: string; appId: string; builderId: string; token: string; createdAt: number }): Promise<void> =>
      records.run('INSERT INTO domains (hostname, appId, builderId, state, token, createdAt) VALUES (?, ?, ?, ?, ?, ?)', [
        claim.hostname, claim.appId, claim.builderId, 'pending', claim.token, claim.createdAt,
      ]),
    /** A claim proven at once (taking a hostname over): active, made and verified at `at`. */
    insertVerified: (claim: { hostname: string; appId: string; builderId: string; token: string; at: number }): Promise<void> =>
      records.run('INSERT INTO domains (hostname, appId, builderId, state, token, createdAt, verifiedAt) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        claim.hostname, claim.appId, claim.builderId, 'active', claim.token, claim.at, claim.at,
      ]),
    /** A pending claim becomes active, verified at `at`; one no longer pending is left as it is. */
    markVerified: (hostname: string, at: number): Promise<void> => records.run("UPDATE domains SET state = 'active', verifiedAt = ? WHERE hostname = ? AND state = 'pending'", [at, hostname]),
    /** Whether the hostname is still pending under that builder's claim. */
    isPendingOf: async (hostname: string, builderId: string): Promise<boolean> => (await records.get("SELECT 1 FROM domains WHERE hostname = ? AND builderId = ? AND state = 'pending'", [hostname, builderId])) !== undefined,
    /** Claims never verified and made at or before `cutoff`, pending or awaiting cleanup: what a sweep releases. */
    lapsed: (cutoff: number): Promise<Row[]> => records.all("SELECT * FROM domains WHERE verifiedAt IS NULL AND createdAt <= ? AND state IN ('pending', 'cleanup_pending')", [cutoff]),
  };

  return { domains, claims };
}

export type DomainRecords = ReturnType<typeof domainRecords>;
