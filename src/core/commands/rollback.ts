/** `platform rollback <artifact id>`: serve a completed artifact again in production (or preview). Code only: data stays. */
import { diagnostic, envelope } from '../diagnostics/index.ts';
import { ARTIFACT_ID, deployEnvironment, type Environment, ROUTES } from '../deploy/index.ts';
import { connect, CONTROL_URL_OPTION, DIR_OPTION, outcomeDiagnostic, resolveApp, type CodeFamily } from './control.ts';
import type { CommandDefinition } from './types.ts';

export interface RollbackResult {
  appId: string;
  environment: Environment;
  artifactId: string;
  deploymentId: string;
  url: string;
}

const FAMILY: CodeFamily = {
  rejected: 'DG5161',
  untrusted: 'DG5162',
  failure: 'DG5169',
  specific: { not_owner: 'DG5161', quota_exceeded: 'DG5161', app_not_found: 'DG5163', app_deleted: 'DG5163', no_deployment: 'DG5164' },
};

export const rollback: CommandDefinition<RollbackResult> = {
  name: 'rollback',
  summary: 'Serve a completed artifact again (production by default).',
  positionals: [{ name: 'artifact id', required: false, description: 'The artifact to serve: sha256: followed by 64 hex digits.' }],
  options: {
    environment: { type: 'string', valueName: '<prod|preview>', description: 'Which environment to roll back (default: prod).' },
    ...DIR_OPTION,
    ...CONTROL_URL_OPTION,
  },
  async run(invocation, host) {
    const artifactId = invocation.positionals[0];
    if (artifactId === undefined || !ARTIFACT_ID.test(artifactId)) {
      return envelope('rollback', [diagnostic('DG5160', artifactId === undefined ? 'platform rollback needs the artifact id to serve.' : `${JSON.stringify(artifactId)} is not an artifact id.`, { hint: 'An artifact id is sha256: followed by 64 lowercase hex digits; platform deployments lists them.' })]);
    }
    const given = invocation.options.environment;
    const environment = typeof given === 'string' ? deployEnvironment(given) : 'production';
    if (!environment) return envelope('rollback', [diagnostic('DG5160', `--environment ${JSON.stringify(given)} cannot be rolled back.`, { hint: 'Use --environment prod or --environment preview.' })]);
    const connection = await connect(invocation, host, FAMILY);
    if (!connection.ok) return envelope('rollback', connection.diagnostics);
    const fs = host.project(typeof invocation.options.dir === 'string' ? invocation.options.dir : '.');
    const app = await resolveApp(connection.value, fs, undefined, { invocation: 'DG5160', noApp: 'DG5163', family: FAMILY });
    if (!app.ok) return envelope('rollback', app.diagnostics);
    const sent = await connection.value.client.call(ROUTES.rollback, { appId: app.value }, { body: { artifactId, environment } });
    if (sent.kind !== 'ok') return envelope('rollback', [outcomeDiagnostic(sent, FAMILY)]);
    return envelope('rollback', [], { appId: app.value, environment, artifactId, deploymentId: sent.body.deployment.id, url: sent.body.url });
  },
  text({ result }) {
    return result ? `✓ ${result.environment} of ${result.appId} serves ${result.artifactId} again\n  ${result.url}` : '';
  },
};
