/**
 * `platform deploy [directory]`: build the project, then send its verified artifact to the control
 * plane, which stores it content-addressed, starts it and serves it in the chosen environment. A
 * project without an identity is given one (`platform.project.json`) on its first deploy.
 */
import { buildProject } from '../build/index.ts';
import { diagnostic, envelope, hasErrors, type Diagnostic } from '../diagnostics/index.ts';
import { deployEnvironment, type Environment, readIdentity, writeIdentity, type AppInfo, deployRequest, ROUTES } from '../deploy/index.ts';
import { connect, CONTROL_URL_OPTION, outcomeDiagnostic, type CodeFamily, type Connection } from './control.ts';
import { missingManifest } from './project-directory.ts';
import type { CommandDefinition } from './types.ts';
import type { WritableFileSystem } from '../fs/index.ts';

export interface DeployResult {
  appId: string;
  environment: Environment;
  artifactId: string;
  deploymentId: string;
  url: string;
  receiptId?: string;
}

const FAMILY: CodeFamily = {
  rejected: 'DG5102',
  untrusted: 'DG5102',
  failure: 'DG5109',
  specific: {
    quota_exceeded: 'DG5113',
    app_not_found: 'DG5123',
    app_deleted: 'DG5123',
    artifact_invalid: 'DG5102',
    module_invalid: 'DG5101',
    runtime_not_ready: 'DG5103',
    runtime_unhealthy: 'DG5104',
    provision_failed: 'DG5106',
  },
};

/** Creates the app on the control plane and writes the project's identity (the first deploy, `link --new`, the first `env set`). */
export async function claimApp(connection: Connection, fs: WritableFileSystem, name: string, quotaCode: 'DG5112' | 'DG5133', family: CodeFamily): Promise<{ app?: AppInfo; diagnostics: Diagnostic[] }> {
  const created = await connection.client.call(ROUTES.createApp, {}, { body: { name } });
  if (created.kind !== 'ok') {
    const quota = created.kind === 'refused' && created.error.code === 'quota_exceeded';
    return { diagnostics: [outcomeDiagnostic(created, quota ? { ...family, specific: { ...family.specific, quota_exceeded: quotaCode } } : family)] };
  }
  await writeIdentity(fs, created.body.app.id, connection.controlUrl);
  return { app: created.body.app, diagnostics: [] };
}

export const deploy: CommandDefinition<DeployResult> = {
  name: 'deploy',
  summary: 'Build the app, then deploy its artifact to preview or production on the control plane.',
  positionals: [{ name: 'directory', required: false, description: 'The project directory (default: the current directory).' }],
  options: {
    environment: { type: 'string', valueName: '<preview|prod|production>', description: 'Where to deploy (default: preview).' },
    ...CONTROL_URL_OPTION,
  },
  async run(invocation, host) {
    const given = invocation.options.environment;
    const environment = typeof given === 'string' ? deployEnvironment(given) : 'preview';
    if (!environment) {
      const local = given === 'dev';
      return envelope('deploy', [diagnostic('DG5105', local ? 'dev is a local environment and cannot be deployed.' : `--environment ${JSON.stringify(given)} is not deployable.`, { hint: 'Use --environment preview, prod or production; run the app locally for dev.' })]);
    }
    const connection = await connect(invocation, host, FAMILY);
    if (!connection.ok) return envelope('deploy', connection.diagnostics);
    const directory = invocation.positionals[0] ?? '.';
    const fs = host.project(directory);
    const missing = await missingManifest(fs, directory);
    if (missing) return envelope('deploy', missing);
    const identity = await readIdentity(fs);
    if (identity.diagnostics.length) return envelope('deploy', identity.diagnostics);

    const built = await buildProject(fs, await host.compiler());
    if (hasErrors(built.diagnostics) || !built.id || !built.record || !built.files) {
      return envelope('deploy', [diagnostic('DG5107', 'The build before the deploy failed; nothing was deployed.', { hint: 'Fix the diagnostics that follow, then deploy again.' }), ...built.diagnostics]);
    }

    let appId = identity.appId;
    if (!appId) {
      const claimed = await claimApp(connection.value, fs, built.record.name, 'DG5112', FAMILY);
      if (!claimed.app) return envelope('deploy', claimed.diagnostics);
      appId = claimed.app.id;
    } else if (identity.cacheStale) {
      await writeIdentity(fs, appId, connection.value.controlUrl);
    }

    const sent = await connection.value.client.call(ROUTES.deploy, { appId }, { body: deployRequest(environment, built.id, built.record, built.files) });
    if (sent.kind !== 'ok') {
      const quota = sent.kind === 'refused' && sent.error.code === 'quota_exceeded' && sent.error.quota === 'apps';
      return envelope('deploy', [outcomeDiagnostic(sent, quota ? { ...FAMILY, specific: { ...FAMILY.specific, quota_exceeded: 'DG5112' } } : FAMILY)]);
    }
    const { deployment, url } = sent.body;
    const warnings = built.diagnostics.filter((d) => d.severity !== 'error');
    return envelope('deploy', warnings, {
      appId,
      environment,
      artifactId: deployment.artifactId,
      deploymentId: deployment.id,
      url,
      ...(deployment.receiptId ? { receiptId: deployment.receiptId } : {}),
    });
  },
  text({ result, ok }) {
    if (!result || !ok) return '';
    return `✓ deployed ${result.artifactId} to ${result.environment} of ${result.appId}\n  ${result.url}${result.receiptId ? `\n  review receipt: ${result.receiptId}` : ''}`;
  },
};

