/**
 * Deployments: deploy an artifact (verified, content-addressed) to an environment, promote preview to
 * production, roll an environment back, list an app's deployments. Each is reserved against the
 * builder's quota before any work, probed on a copy of the data before it is switched to, and recorded
 * as failed, never left pending, when anything goes wrong. Every route acts only on the caller's own apps.
 */
import type { Hono } from 'hono';
import type { ArtifactRecord } from '../core/build';
import { ARTIFACT_ID, deployEnvironment, hostedOrigin, RECEIPT_ID, type Environment, ROUTES } from '../core/deploy';
import { answer, jsonObject as json, deployQuotaRefusal, deploymentInfo, newId, refuse, type Caller, type Context, type Refused } from './context';
import { on, ownedAppId, ownsApp, type ControlContext, type ControlEnv, type RouteResult } from './middleware';
import type { Row } from './records';
import type { Hosting } from './hosting/hosting';
import { Slots } from './slots';

/** The largest deploy request: the artifact's blobs travel base64 in it. */
export const MAX_DEPLOY_BYTES = 64 * 1024 * 1024;

const FAILURE_STATUS = { module_invalid: 422, provision_failed: 409, runtime_not_ready: 503, runtime_unhealthy: 502, artifact_invalid: 422 } as const;

/** Deploy bodies read at once: each may be 64 MiB, and several times that while parsed and checked. */
const DEPLOY_BODY_SLOTS = 2;

type Kind = 'deploy' | 'promote' | 'rollback';
interface Reservation {
  id: string;
  caller: Caller;
  appId: string;
  environment: Environment;
  artifactId: string;
  kind: Kind;
}

export function deployRoutes(app: Hono<ControlEnv>, ctx: Context, hosting: Hosting): void {
  const deployBodies = new Slots(DEPLOY_BODY_SLOTS);
  const { deployments, serving, stores } = ctx.apps;

  /**
   * Checks the deploy quota and records a pending deployment in one transaction (transactions run one at
   * a time, in every control plane sharing the records): of any number of concurrent requests, only as
   * many as the quota has room for get a reservation.
   */
  function reserve(caller: Caller, appId: string, environment: Environment, artifactId: string, kind: Kind): Promise<Reservation | Refused> {
    return ctx.records.transaction(async () => {
      const quota = await deployQuotaRefusal(ctx, caller.builderId);
      if (quota) return quota;
      const id = newId('dep');
      await deployments.insertPending({ id, appId, builderId: caller.builderId, environment, artifactId, kind, createdAt: ctx.now() });
      return { id, caller, appId, environment, artifactId, kind };
    });
  }

  /** Settles a reserved deployment: failed, or completed and served by its environment. */
  async function settle(reservation: Reservation, failure?: { code: string; message: string }, manifest?: ArtifactRecord['manifest']): Promise<Row> {
    const { id, appId, environment, artifactId } = reservation;
    await ctx.records.transaction(async () => {
      if (failure) {
        await deployments.markFailed(id, failure.code, failure.message);
        return;
      }
      await deployments.markCompleted(id, environment === 'preview' ? newId('review') : null);
      await serving.set(appId, environment, artifactId, id);
      // Storage: a deploy declaring it attaches the store (the same one, contents intact); one without it detaches it, keeping the objects.
      const declares = manifest?.capabilities?.includes('storage') ?? false;
      if (declares) await stores.attach(appId, environment);
      else if ((await stores.state(appId, environment)) === 'attached') await stores.detach(appId, environment);
    });
    return (await deployments.get(id))!;
  }

  /** Runs the work of a reservation; if it throws, the deployment is recorded as failed, never left pending. */
  async function carry<T>(reservation: Reservation, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (await deployments.isPending(reservation.id)) {
        await settle(reservation, { code: 'internal', message: `The deployment failed: ${error instanceof Error ? error.message : String(error)}` });
      }
      throw error;
    }
  }

  /** Starts a reserved artifact in its environment: probed first, so a failure leaves the previous version serving. */
  async function activate(reservation: Reservation): Promise<RouteResult<typeof ROUTES.deploy>> {
    const { appId, environment, artifactId } = reservation;
    const artifact = ctx.artifacts.record(artifactId);
    if (!artifact) {
      await settle(reservation, { code: 'no_deployment', message: `The artifact ${artifactId} is not kept.` });
      return refuse(404, 'no_deployment', `The artifact ${artifactId} is not kept.`);
    }
    const failure = await hosting.probe(appId, environment, artifact);
    if (failure) {
      await settle(reservation, failure);
      return refuse(FAILURE_STATUS[failure.code], failure.code, `${failure.message} Nothing was activated; the previous version still serves.`);
    }
    // The probe ran on a copy; the switch starts the artifact on the live data and must answer ready
    // (data written since the copy may not fit). Until it does, the records name the previous version.
    const switched = await hosting.activate(appId, environment, artifact);
    if (switched) {
      await settle(reservation, switched);
      return refuse(FAILURE_STATUS[switched.code], switched.code, `${switched.message} Nothing was activated; the previous version still serves.`);
    }
    const row = await settle(reservation, undefined, artifact.manifest);
    return answer(201, { deployment: deploymentInfo(row), url: hostedOrigin(appId, environment, ctx.publicOrigin) });
  }

  const mine = ownsApp(ctx);
  const inService = ownsApp(ctx, { inService: true });
  /** The caller and the id of the app the middleware checked. */
  const owner = (c: ControlContext) => ({ who: c.get('caller'), appId: ownedAppId(c) });

  on(app, ROUTES.deploy, inService, async (c) => {
    const { who, appId } = owner(c);
    // The body is read, parsed and its blobs kept in a slot (memory bounded by the slots, however many
    // deploys arrive at once); the probe and the switch, which hold little memory, run outside it.
    const received = await deployBodies.run(async (): Promise<Refused | Reservation> => {
      const body = await json(c.req.raw);
      const environment = typeof body?.environment === 'string' ? deployEnvironment(body.environment) : undefined;
      const artifact = body?.artifact as { id?: unknown; record?: unknown; blobs?: unknown } | undefined;
      if (!body || !environment || typeof artifact !== 'object' || artifact === null) return refuse(400, 'invalid_request', 'Send {"environment": "preview" | "production", "artifact": {"id", "record", "blobs"}}.');
      if (typeof artifact.id !== 'string' || !ARTIFACT_ID.test(artifact.id)) return refuse(422, 'artifact_invalid', 'The artifact was refused: its id is not sha256: followed by 64 hex digits.');
      const reservation = await reserve(who, appId, environment, artifact.id, 'deploy');
      if (reservation instanceof Response) return reservation;
      const kept = await carry(reservation, async () => {
        const outcome = await ctx.artifacts.receive(who.builderId, artifact.id as string, artifact.record, artifact.blobs);
        if (outcome.ok) return undefined;
        // A refused artifact is a failed deployment, and counts against the quota; nothing of it is kept or started.
        await settle(reservation, { code: outcome.code, message: outcome.message });
        return refuse(422, outcome.code, `The artifact was refused: ${outcome.message} Nothing was kept or started.`);
      });
      return kept ?? reservation;
    });
    if (received instanceof Response) return received;
    return carry(received, () => activate(received));
  });

  on(app, ROUTES.listDeployments, mine, async (c) => {
    const given = c.req.query('limit') ?? '20';
    const limit = Number(given);
    if (!/^[0-9]+$/.test(given) || limit < 1 || limit > 200) return refuse(400, 'invalid_request', 'limit must be a whole number from 1 to 200.');
    // Deployments still in progress are not history yet.
    return answer(200, { deployments: (await deployments.history(owner(c).appId, limit)).map(deploymentInfo) });
  });

  on(app, ROUTES.promote, inService, async (c) => {
    const { who, appId } = owner(c);
    const body = (await json(c.req.raw)) ?? {};
    const { artifactId, receiptId } = body;
    if (artifactId !== undefined && receiptId !== undefined) return refuse(400, 'invalid_request', 'Give artifactId or receiptId, not both.');
    let chosen: string;
    if (typeof receiptId === 'string') {
      if (!RECEIPT_ID.test(receiptId)) return refuse(404, 'no_receipt', `${JSON.stringify(receiptId)} is not a review receipt id.`);
      const found = await deployments.artifactOfReceipt(appId, receiptId);
      if (!found) return refuse(404, 'no_receipt', `There is no review receipt ${receiptId} for ${appId}.`);
      chosen = found;
    } else if (typeof artifactId === 'string') {
      if (!ARTIFACT_ID.test(artifactId)) return refuse(400, 'invalid_request', 'artifactId must be sha256: followed by 64 hex digits.');
      if (!(await deployments.completed(appId, artifactId))) return refuse(404, 'no_deployment', `${appId} has no completed deployment of ${artifactId}.`);
      chosen = artifactId;
    } else if (artifactId === undefined && receiptId === undefined) {
      const preview = await serving.artifact(appId, 'preview');
      if (!preview) return refuse(409, 'no_preview', `${appId} has no completed preview deployment to promote.`);
      chosen = preview;
    } else {
      return refuse(400, 'invalid_request', 'artifactId and receiptId are strings.');
    }
    const reservation = await reserve(who, appId, 'production', chosen, 'promote');
    if (reservation instanceof Response) return reservation;
    return carry(reservation, () => activate(reservation));
  });

  on(app, ROUTES.rollback, inService, async (c) => {
    const { who, appId } = owner(c);
    const body = (await json(c.req.raw)) ?? {};
    const environment = typeof body.environment === 'string' ? deployEnvironment(body.environment) : body.environment === undefined ? 'production' : undefined;
    if (typeof body.artifactId !== 'string' || !ARTIFACT_ID.test(body.artifactId) || !environment) return refuse(400, 'invalid_request', 'Send {"artifactId": "sha256:…", "environment": "production" | "preview"}.');
    // Back to what this environment served: anything else would be a promotion without its review.
    if (!(await deployments.completed(appId, body.artifactId, environment))) {
      return refuse(404, 'no_deployment', `${appId} has no completed ${environment} deployment of ${body.artifactId}.`);
    }
    const reservation = await reserve(who, appId, environment, body.artifactId, 'rollback');
    if (reservation instanceof Response) return reservation;
    return carry(reservation, () => activate(reservation));
  });
}
