/**
 * `platform promote`: make production serve a completed artifact. By default, whatever preview serves;
 * `--from-artifact` names an artifact, `--receipt` the review receipt of a preview deployment. Promotion
 * ships code, never data.
 */
import { diagnostic, envelope } from '../diagnostics/index.ts';
import { ARTIFACT_ID, RECEIPT_ID, ROUTES } from '../deploy/index.ts';
import { connect, CONTROL_URL_OPTION, DIR_OPTION, outcomeDiagnostic, resolveApp, type CodeFamily } from './control.ts';
import type { CommandDefinition } from './types.ts';

export interface PromoteResult {
  appId: string;
  artifactId: string;
  deploymentId: string;
  url: string;
}

const FAMILY: CodeFamily = {
  rejected: 'DG5171',
  untrusted: 'DG5172',
  failure: 'DG5179',
  specific: { not_owner: 'DG5171', quota_exceeded: 'DG5171', app_not_found: 'DG5173', app_deleted: 'DG5173', no_deployment: 'DG5174', no_preview: 'DG5175', no_receipt: 'DG5176' },
};

export const promote: CommandDefinition<PromoteResult> = {
  name: 'promote',
  summary: 'Promote to production what preview serves, a named artifact, or the artifact of a review receipt.',
  positionals: [],
  options: {
    'from-artifact': { type: 'string', valueName: '<sha256:…>', description: 'Promote this completed artifact.' },
    receipt: { type: 'string', valueName: '<review_…>', description: 'Promote the artifact of this review receipt.' },
    ...DIR_OPTION,
    ...CONTROL_URL_OPTION,
  },
  async run(invocation, host) {
    const artifact = invocation.options['from-artifact'];
    const receipt = invocation.options.receipt;
    if (typeof artifact === 'string' && typeof receipt === 'string') {
      return envelope('promote', [diagnostic('DG5177', '--receipt and --from-artifact cannot be given together.', { hint: 'Give one of them, or neither to promote what preview serves.' })]);
    }
    if (typeof artifact === 'string' && !ARTIFACT_ID.test(artifact)) {
      return envelope('promote', [diagnostic('DG5170', `--from-artifact ${JSON.stringify(artifact)} is not an artifact id.`, { hint: 'An artifact id is sha256: followed by 64 lowercase hex digits, as platform deployments lists.' })]);
    }
    if (typeof receipt === 'string' && !RECEIPT_ID.test(receipt)) {
      return envelope('promote', [diagnostic('DG5176', `--receipt ${JSON.stringify(receipt)} is not a complete review receipt id.`, { hint: 'A receipt id is review_ followed by 26 characters, as platform deploy and platform deployments show.' })]);
    }
    const connection = await connect(invocation, host, FAMILY);
    if (!connection.ok) return envelope('promote', connection.diagnostics);
    const fs = host.project(typeof invocation.options.dir === 'string' ? invocation.options.dir : '.');
    const app = await resolveApp(connection.value, fs, undefined, { invocation: 'DG5173', noApp: 'DG5173', family: FAMILY });
    if (!app.ok) return envelope('promote', app.diagnostics);
    const sent = await connection.value.client.call(ROUTES.promote, { appId: app.value }, {
      body: { ...(typeof artifact === 'string' ? { artifactId: artifact } : {}), ...(typeof receipt === 'string' ? { receiptId: receipt } : {}) },
    });
    if (sent.kind !== 'ok') return envelope('promote', [outcomeDiagnostic(sent, FAMILY)]);
    return envelope('promote', [], { appId: app.value, artifactId: sent.body.deployment.artifactId, deploymentId: sent.body.deployment.id, url: sent.body.url });
  },
  text({ result }) {
    return result ? `✓ production of ${result.appId} serves ${result.artifactId}\n  ${result.url}` : '';
  },
};
