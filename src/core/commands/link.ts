/** `platform link`: list your apps, attach the project to one (`--app`), or give it a new identity (`--new`). */
import { diagnostic, envelope } from '../diagnostics/index.ts';
import { APP_ID, writeIdentity, type AppInfo, ROUTES } from '../deploy/index.ts';
import { checkManifest } from '../manifest/index.ts';
import { connect, CONTROL_URL_OPTION, DIR_OPTION, outcomeDiagnostic, type CodeFamily } from './control.ts';
import { claimApp } from './deploy.ts';
import { missingManifest } from './project-directory.ts';
import type { CommandDefinition } from './types.ts';

export interface LinkResult {
  apps?: AppInfo[];
  app?: AppInfo;
}

const FAMILY: CodeFamily = { rejected: 'DG5129', untrusted: 'DG5124', failure: 'DG5129', specific: { app_not_found: 'DG5123', app_deleted: 'DG5123', not_owner: 'DG5123' } };

export const link: CommandDefinition<LinkResult> = {
  name: 'link',
  summary: 'List your apps, link the project to one of them (--app), or give it a new app identity (--new).',
  positionals: [],
  options: {
    app: { type: 'string', valueName: '<appId>', description: 'Link the project to this app of yours.' },
    new: { type: 'boolean', description: 'Create a new app and link the project to it.' },
    ...DIR_OPTION,
    ...CONTROL_URL_OPTION,
  },
  async run(invocation, host) {
    const appId = invocation.options.app;
    if (typeof appId === 'string' && invocation.options.new) {
      return envelope('link', [diagnostic('DG5122', '--app and --new cannot be given together.', { hint: 'Use --app <appId> to attach an existing app, or --new for a new identity.' })]);
    }
    if (typeof appId === 'string' && !APP_ID.test(appId)) {
      return envelope('link', [diagnostic('DG5122', `--app ${JSON.stringify(appId)} is not an appId.`, { hint: 'An appId is app_ followed by 26 lowercase base32 characters; platform link lists yours.' })]);
    }
    const connection = await connect(invocation, host, FAMILY);
    if (!connection.ok) return envelope('link', connection.diagnostics);
    const { client, controlUrl } = connection.value;
    const directory = typeof invocation.options.dir === 'string' ? invocation.options.dir : '.';
    const fs = host.project(directory);
    if (typeof appId === 'string') {
      const found = await client.call(ROUTES.getApp, { appId });
      if (found.kind !== 'ok') {
        const mine = found.kind === 'refused' && (found.error.code === 'not_owner' || found.error.code === 'app_not_found' || found.error.code === 'app_deleted');
        if (mine) return envelope('link', [diagnostic('DG5123', `You own no app ${appId} on ${controlUrl}.`, { hint: 'List your apps with platform link, or make a new one with platform link --new.' })]);
        return envelope('link', [outcomeDiagnostic(found, FAMILY)]);
      }
      await writeIdentity(fs, appId, controlUrl);
      return envelope('link', [], { app: found.body.app });
    }
    if (invocation.options.new) {
      const missing = await missingManifest(fs, directory);
      if (missing) return envelope('link', missing);
      const checked = await checkManifest(fs);
      if (!checked.manifest) return envelope('link', checked.diagnostics);
      const claimed = await claimApp(connection.value, fs, checked.manifest.name, 'DG5112', FAMILY);
      return envelope('link', claimed.diagnostics, claimed.app ? { app: claimed.app } : undefined);
    }
    const listed = await client.call(ROUTES.listApps, {});
    if (listed.kind !== 'ok') return envelope('link', [outcomeDiagnostic(listed, FAMILY)]);
    return envelope('link', [], { apps: listed.body.apps });
  },
  text({ result }) {
    if (!result) return '';
    if (result.app) return `✓ linked to ${result.app.id} (${result.app.name})`;
    if (!result.apps?.length) return 'you own no apps yet; platform deploy or platform link --new makes one';
    return result.apps.map((a) => `${a.id}  ${a.name}  ${a.state}`).join('\n');
  },
};
