/**
 * The records of apps and what was done to them, as small repositories, one per resource: apps,
 * deployments, what each environment serves, the environments' object stores and environment values.
 * Each names what it does; the SQL lives here, not in the route handlers (app-routes.ts), so that
 * swapping the records' engine changes this file and not the handlers. Rows are the records' rows.
 */
import type { Environment } from '../core/deploy';
import type { Records, Row } from './records';

type Kind = 'deploy' | 'promote' | 'rollback';

/** An app hosted by the node `?` (or by whichever node: a record from before nodes). */
const ON_NODE = '(node = ? OR node IS NULL)';

export function appRecords(records: Records) {
  const apps = {
    get: (id: string): Promise<Row | undefined> => records.get('SELECT * FROM apps WHERE id = ?', [id]),
    exists: async (id: string): Promise<boolean> => (await records.get('SELECT 1 FROM apps WHERE id = ?', [id])) !== undefined,
    /** A builder's apps that are not deleted, oldest first. */
    owned: (builderId: string): Promise<Row[]> => records.all("SELECT * FROM apps WHERE ownerId = ? AND state IN ('active', 'disabled') ORDER BY createdAt, id", [builderId]),
    countOwned: async (builderId: string): Promise<number> => Number((await records.get("SELECT count(*) AS n FROM apps WHERE ownerId = ? AND state IN ('active', 'disabled')", [builderId]))?.n ?? 0),
    insert: (app: { id: string; name: string; ownerId: string; createdAt: number; node: string }): Promise<void> =>
      records.run('INSERT INTO apps (id, name, ownerId, state, createdAt, node) VALUES (?, ?, ?, ?, ?, ?)', [app.id, app.name, app.ownerId, 'active', app.createdAt, app.node]),
    /** Adds the `node` column (the hosting node of an app, nodes.ts) to records made before it. */
    ensureColumns: (): Promise<void> =>
      records.transaction(async () => {
        if (!(await records.columns('apps')).includes('node')) await records.run('ALTER TABLE apps ADD COLUMN node TEXT');
      }),
    setState: (id: string, state: 'active' | 'disabled'): Promise<void> => records.run('UPDATE apps SET state = ? WHERE id = ?', [state, id]),
    /** Offline, with the teardown recorded, so that a sweep at the next start finishes what a crash interrupted. */
    markDeleting: (id: string): Promise<void> => records.run("UPDATE apps SET state = 'deleting', teardown = 'pending' WHERE id = ?", [id]),
    markDeleted: (id: string, at: number): Promise<void> => records.run("UPDATE apps SET state = 'deleted', deletedAt = ? WHERE id = ?", [at, id]),
    /** Apps whose deletion a stop interrupted (`markDeleting` without `markDeleted`). */
    deleting: async (node: string): Promise<string[]> => (await records.all(`SELECT id FROM apps WHERE state = 'deleting' AND ${ON_NODE}`, [node])).map((row) => String(row.id)),
    /** An app's state alone (what a hosted request reads), or undefined for no such app. */
    state: async (id: string): Promise<string | undefined> => {
      const found = await records.get('SELECT state FROM apps WHERE id = ?', [id]);
      return found ? String(found.state) : undefined;
    },
    /** An app's state and the node that hosts it (null: a record from before nodes), or undefined for no such app. */
    placement: async (id: string): Promise<{ state: string; node: string | null } | undefined> => {
      const found = await records.get('SELECT state, node FROM apps WHERE id = ?', [id]);
      return found ? { state: String(found.state), node: found.node === null || found.node === undefined ? null : String(found.node) } : undefined;
    },
  };

  const deployments = {
    get: (id: string): Promise<Row | undefined> => records.get('SELECT * FROM deployments WHERE id = ?', [id]),
    insertPending: (deployment: { id: string; appId: string; builderId: string; environment: Environment; artifactId: string; kind: Kind; createdAt: number }): Promise<void> =>
      records.run('INSERT INTO deployments (id, appId, builderId, environment, artifactId, kind, state, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
        deployment.id, deployment.appId, deployment.builderId, deployment.environment, deployment.artifactId, deployment.kind, 'pending', deployment.createdAt,
      ]),
    isPending: async (id: string): Promise<boolean> => (await records.get("SELECT 1 FROM deployments WHERE id = ? AND state = 'pending'", [id])) !== undefined,
    markFailed: (id: string, code: string, message: string): Promise<void> => records.run("UPDATE deployments SET state = 'failed', errorCode = ?, errorMessage = ? WHERE id = ?", [code, message, id]),
    markCompleted: (id: string, receiptId: string | null): Promise<void> => records.run("UPDATE deployments SET state = 'completed', receiptId = ? WHERE id = ?", [receiptId, id]),
    /** Every deployment still pending is recorded as failed with `message` (code `internal`): one a stop interrupted activated nothing. */
    failPending: async (message: string, node: string): Promise<void> => {
      const pending = `state = 'pending' AND appId IN (SELECT id FROM apps WHERE ${ON_NODE})`;
      if (await records.get(`SELECT 1 FROM deployments WHERE ${pending}`, [node])) await records.run(`UPDATE deployments SET state = 'failed', errorCode = 'internal', errorMessage = ? WHERE ${pending}`, [message, node]);
    },
    /** When each of a builder's deployments since `since` was made (failed ones too), oldest first: what its quota counts. */
    createdSince: async (builderId: string, since: number): Promise<number[]> =>
      (await records.all('SELECT createdAt FROM deployments WHERE builderId = ? AND createdAt > ? ORDER BY createdAt', [builderId, since])).map((row) => Number(row.createdAt)),
    /** An app's finished deployments (pending ones are not history yet), newest first. */
    history: (appId: string, limit: number): Promise<Row[]> => records.all("SELECT * FROM deployments WHERE appId = ? AND state != 'pending' ORDER BY createdAt DESC, rowid DESC LIMIT ?", [appId, limit]),
    /** The artifact a completed preview deployment's review receipt names. */
    artifactOfReceipt: async (appId: string, receiptId: string): Promise<string | undefined> => {
      const found = await records.get("SELECT artifactId FROM deployments WHERE appId = ? AND receiptId = ? AND state = 'completed'", [appId, receiptId]);
      return found ? String(found.artifactId) : undefined;
    },
    /** Whether the app has a completed deployment of the artifact (to that environment, when one is named). */
    completed: async (appId: string, artifactId: string, environment?: Environment): Promise<boolean> =>
      (environment
        ? (await records.get("SELECT 1 FROM deployments WHERE appId = ? AND artifactId = ? AND environment = ? AND state = 'completed'", [appId, artifactId, environment]))
        : (await records.get("SELECT 1 FROM deployments WHERE appId = ? AND artifactId = ? AND state = 'completed'", [appId, artifactId]))) !== undefined,
  };

  const serving = {
    set: (appId: string, environment: Environment, artifactId: string, deploymentId: string): Promise<void> =>
      records.run('INSERT INTO serving (appId, environment, artifactId, deploymentId) VALUES (?, ?, ?, ?) ON CONFLICT (appId, environment) DO UPDATE SET artifactId = excluded.artifactId, deploymentId = excluded.deploymentId', [appId, environment, artifactId, deploymentId]),
    artifact: async (appId: string, environment: Environment): Promise<string | undefined> => {
      const found = await records.get('SELECT artifactId FROM serving WHERE appId = ? AND environment = ?', [appId, environment]);
      return found ? String(found.artifactId) : undefined;
    },
    /** What an environment serves with the deployment that made it so (its columns, `artifactId` always). */
    withDeployment: (appId: string, environment: Environment): Promise<Row | undefined> =>
      records.get('SELECT d.*, s.artifactId AS artifactId FROM serving s LEFT JOIN deployments d ON d.id = s.deploymentId WHERE s.appId = ? AND s.environment = ?', [appId, environment]),
    /** What each of an app's environments serves, and by which deployment. */
    ofApp: (appId: string): Promise<Row[]> => records.all('SELECT environment, artifactId, deploymentId FROM serving WHERE appId = ?', [appId]),
    removeApp: (appId: string): Promise<void> => records.run('DELETE FROM serving WHERE appId = ?', [appId]),
  };

  const stores = {
    state: async (appId: string, environment: Environment): Promise<string | undefined> => {
      const found = await records.get('SELECT state FROM stores WHERE appId = ? AND environment = ?', [appId, environment]);
      return found ? String(found.state) : undefined;
    },
    attach: (appId: string, environment: Environment): Promise<void> =>
      records.run("INSERT INTO stores (appId, environment, state) VALUES (?, ?, 'attached') ON CONFLICT (appId, environment) DO UPDATE SET state = 'attached'", [appId, environment]),
    detach: (appId: string, environment: Environment): Promise<void> => records.run("UPDATE stores SET state = 'detached' WHERE appId = ? AND environment = ?", [appId, environment]),
    ofApp: (appId: string): Promise<Row[]> => records.all('SELECT environment, state FROM stores WHERE appId = ?', [appId]),
    destroyApp: (appId: string): Promise<void> => records.run("UPDATE stores SET state = 'destroyed' WHERE appId = ?", [appId]),
  };

  const envValues = {
    /** Names and when each was set, by name. */
    list: (appId: string, scope: string): Promise<Row[]> => records.all('SELECT name, updatedAt FROM env_values WHERE appId = ? AND scope = ? ORDER BY name', [appId, scope]),
    /** Names and sealed values, by name. */
    sealed: (appId: string, scope: string): Promise<Row[]> => records.all('SELECT name, sealed FROM env_values WHERE appId = ? AND scope = ? ORDER BY name', [appId, scope]),
    set: (appId: string, scope: string, name: string, sealed: string, at: number): Promise<void> =>
      records.run('INSERT INTO env_values (appId, scope, name, sealed, updatedAt) VALUES (?, ?, ?, ?, ?) ON CONFLICT (appId, scope, name) DO UPDATE SET sealed = excluded.sealed, updatedAt = excluded.updatedAt', [appId, scope, name, sealed, at]),
    exists: async (appId: string, scope: string, name: string): Promise<boolean> => (await records.get('SELECT 1 FROM env_values WHERE appId = ? AND scope = ? AND name = ?', [appId, scope, name])) !== undefined,
    remove: (appId: string, scope: string, name: string): Promise<void> => records.run('DELETE FROM env_values WHERE appId = ? AND scope = ? AND name = ?', [appId, scope, name]),
    removeApp: (appId: string): Promise<void> => records.run('DELETE FROM env_values WHERE appId = ?', [appId]),
  };

  return { apps, deployments, serving, stores, envValues };
}

export type AppRecords = ReturnType<typeof appRecords>;
