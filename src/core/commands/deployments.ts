/** `platform deployments [<app>]`: the deployment history of an app, newest first. */
import { diagnostic, envelope } from '../diagnostics/index.ts';
import { type DeploymentInfo, ROUTES } from '../deploy/index.ts';
import { connect, CONTROL_URL_OPTION, DIR_OPTION, outcomeDiagnostic, resolveApp, type CodeFamily } from './control.ts';
import type { CommandDefinition } from './types.ts';

export interface DeploymentsResult {
  appId: string;
  deployments: DeploymentInfo[];
}

const FAMILY: CodeFamily = { rejected: 'DG5141', untrusted: 'DG5142', failure: 'DG5149', specific: { not_owner: 'DG5141', app_not_found: 'DG5143', app_deleted: 'DG5143' } };
export const DEFAULT_LIMIT = 20;

export const deployments: CommandDefinition<DeploymentsResult> = {
  name: 'deployments',
  summary: 'List the deployment history of the project\'s app (or of a named app), newest first.',
  positionals: [{ name: 'app', required: false, description: 'An appId or the name of one of your apps (default: the project\'s).' }],
  options: {
    limit: { type: 'string', valueName: '<1-200>', description: `How many deployments to list (default: ${DEFAULT_LIMIT}).` },
    ...DIR_OPTION,
    ...CONTROL_URL_OPTION,
  },
  async run(invocation, host) {
    const given = invocation.options.limit;
    const limit = typeof given === 'string' ? Number(given) : DEFAULT_LIMIT;
    if (typeof given === 'string' && (!/^[0-9]+$/.test(given) || limit < 1 || limit > 200)) {
      return envelope('deployments', [diagnostic('DG5140', `--limit ${JSON.stringify(given)} is not a whole number from 1 to 200.`, { hint: 'Give --limit a positive integer up to 200.' })]);
    }
    const connection = await connect(invocation, host, FAMILY);
    if (!connection.ok) return envelope('deployments', connection.diagnostics);
    const fs = host.project(typeof invocation.options.dir === 'string' ? invocation.options.dir : '.');
    const app = await resolveApp(connection.value, fs, invocation.positionals[0], { invocation: 'DG5140', noApp: 'DG5143', family: FAMILY });
    if (!app.ok) return envelope('deployments', app.diagnostics);
    const listed = await connection.value.client.call(ROUTES.listDeployments, { appId: app.value }, { query: { limit: String(limit) }, check: (b) => b.deployments.length <= limit });
    if (listed.kind !== 'ok') return envelope('deployments', [outcomeDiagnostic(listed, FAMILY)]);
    return envelope('deployments', [], { appId: app.value, deployments: listed.body.deployments });
  },
  text({ result }) {
    if (!result) return '';
    if (!result.deployments.length) return `no deployments of ${result.appId}`;
    return result.deployments
      .map((d) => `${d.createdAt}  ${d.environment.padEnd(10)} ${d.kind.padEnd(8)} ${d.state.padEnd(9)} ${d.artifactId}${d.receiptId ? `  ${d.receiptId}` : ''}${d.error ? `  (${d.error.message})` : ''}`)
      .join('\n');
  },
};
