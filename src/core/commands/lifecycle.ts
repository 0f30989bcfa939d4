/**
 * `platform disable`, `enable` and `delete`: the app lifecycle of tooling.md. Disabling takes the app
 * offline and keeps its data; deleting (with `--confirm <exact app name>`) is permanent.
 */
import { diagnostic, envelope } from '../diagnostics/index.ts';
import { type AppInfo, ROUTES } from '../deploy/index.ts';
import { connect, CONTROL_URL_OPTION, DIR_OPTION, outcomeDiagnostic, resolveApp, type CodeFamily } from './control.ts';
import type { CommandDefinition } from './types.ts';

export interface LifecycleResult {
  app: AppInfo;
}

const FAMILY: CodeFamily = { rejected: 'DG5151', untrusted: 'DG5152', failure: 'DG5159', specific: { not_owner: 'DG5151', app_not_found: 'DG5153', app_deleted: 'DG5153', confirm_mismatch: 'DG5151' } };

function lifecycleCommand(name: 'disable' | 'enable' | 'delete', summary: string): CommandDefinition<LifecycleResult> {
  return {
    name,
    summary,
    positionals: [{ name: 'app', required: false, description: 'An appId or the name of one of your apps (default: the project\'s).' }],
    options: {
      ...(name === 'delete' ? { confirm: { type: 'string' as const, valueName: '<app name>', description: 'The exact name of the app, to confirm the deletion.' } } : {}),
      ...DIR_OPTION,
      ...CONTROL_URL_OPTION,
    },
    async run(invocation, host) {
      const confirm = invocation.options.confirm;
      if (name === 'delete' && typeof confirm !== 'string') {
        return envelope(name, [diagnostic('DG5150', 'platform delete needs --confirm with the app\'s exact name.', { hint: 'Write platform delete <app> --confirm <app name>. Deleting is permanent.' })]);
      }
      const connection = await connect(invocation, host, FAMILY);
      if (!connection.ok) return envelope(name, connection.diagnostics);
      const fs = host.project(typeof invocation.options.dir === 'string' ? invocation.options.dir : '.');
      const app = await resolveApp(connection.value, fs, invocation.positionals[0], { invocation: 'DG5150', noApp: 'DG5153', family: FAMILY });
      if (!app.ok) return envelope(name, app.diagnostics);
      const where = { appId: app.value };
      const sent = name === 'delete' ? await connection.value.client.call(ROUTES.remove, where, { body: { confirm: String(confirm) } }) : await connection.value.client.call(ROUTES[name], where, { body: {} });
      if (sent.kind !== 'ok') return envelope(name, [outcomeDiagnostic(sent, FAMILY)]);
      return envelope(name, [], { app: sent.body.app });
    },
    text({ result }) {
      if (!result) return '';
      const { app } = result;
      if (name === 'delete') return `✓ deleted ${app.id} (${app.name}); its data and stored objects are destroyed`;
      return name === 'disable' ? `✓ ${app.id} (${app.name}) is offline; its data is kept` : `✓ ${app.id} (${app.name}) is back in service`;
    },
  };
}

export const disable = lifecycleCommand('disable', 'Take the app offline, keeping its data and stored objects.');
export const enable = lifecycleCommand('enable', 'Bring a disabled app back into service.');
export const remove = lifecycleCommand('delete', 'Delete the app permanently (needs --confirm <exact app name>).');
