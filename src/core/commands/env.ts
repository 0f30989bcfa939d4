/**
 * `platform env set|ls|rm|pull`: the app's environment values, kept encrypted by the control plane per
 * environment (preview, production, and dev for local runs). `pull` writes
 * `.platform/env.<environment>.local.json`.
 */
import { diagnostic, envelope } from '../diagnostics/index.ts';
import { ENV_NAME, ENV_VALUE_MAX_BYTES, envScope, type EnvScope, readIdentity, writeIdentity, ENV_LOCAL_FORMAT, isObject, type EnvVariableInfo, ROUTES } from '../deploy/index.ts';
import { checkManifest } from '../manifest/index.ts';
import { connect, CONTROL_URL_OPTION, DIR_OPTION, outcomeDiagnostic, type CodeFamily } from './control.ts';
import { claimApp } from './deploy.ts';
import type { CommandDefinition } from './types.ts';
import { envLocalProblem } from '../local/index.ts';

export interface EnvResult {
  action: 'set' | 'ls' | 'rm' | 'pull';
  appId: string;
  environment: EnvScope;
  variables?: EnvVariableInfo[];
  name?: string;
  removed?: boolean;
  /** `pull`: the file written and the names in it (never the values). */
  file?: string;
  names?: string[];
}

const FAMILY: CodeFamily = { rejected: 'DG5131', untrusted: 'DG5132', failure: 'DG5139', specific: { not_owner: 'DG5131', quota_exceeded: 'DG5133' } };
const ACTIONS = ['set', 'ls', 'rm', 'pull'] as const;


export const env: CommandDefinition<EnvResult> = {
  name: 'env',
  summary: 'Set, list, remove or pull the app\'s environment values (kept encrypted by the control plane).',
  positionals: [
    { name: 'action', required: false, description: 'set, ls, rm or pull.' },
    { name: 'name', required: false, description: 'The value\'s UPPER_SNAKE_CASE name (set, rm).' },
    { name: 'value', required: false, description: 'The value (set).' },
  ],
  options: {
    environment: { type: 'string', valueName: '<prod|preview|dev>', description: 'Which environment (default: preview).' },
    ...DIR_OPTION,
    ...CONTROL_URL_OPTION,
  },
  async run(invocation, host) {
    const [given0, name, value] = invocation.positionals;
    const action = given0 as EnvResult['action'];
    const bad = (message: string, hint: string) => envelope<EnvResult>('env', [diagnostic('DG5130', message, { hint })]);
    if (!(ACTIONS as readonly (string | undefined)[]).includes(given0)) {
      return bad(given0 === undefined ? 'platform env needs an action.' : `Unknown env action "${given0}".`, 'Use platform env set <NAME> <value>, env ls, env rm <NAME> or env pull.');
    }
    const given = invocation.options.environment;
    const environment = typeof given === 'string' ? envScope(given) : 'preview';
    if (!environment) return bad(`--environment ${JSON.stringify(given)} is not an environment.`, 'Use --environment prod, preview or dev.');
    const wantsName = action === 'set' || action === 'rm';
    if (wantsName && name === undefined) return bad(`platform env ${action} needs a name.`, `Write platform env ${action} <NAME>${action === 'set' ? ' <value>' : ''}.`);
    if (wantsName && !ENV_NAME.test(name!)) return bad(`${JSON.stringify(name)} is not an UPPER_SNAKE_CASE name.`, 'Names are capital letters, digits and underscores, starting with a letter (API_URL).');
    if (!wantsName && name !== undefined) return bad(`platform env ${action} takes no name.`, 'Leave out the name.');
    if (action === 'set' && value === undefined) return bad('platform env set needs a value.', `Write platform env set ${name} <value>.`);
    if (action !== 'set' && value !== undefined) return bad(`platform env ${action} takes no value.`, 'Leave out the value.');
    if (value !== undefined && new TextEncoder().encode(value).byteLength > ENV_VALUE_MAX_BYTES) return bad(`The value of ${name} is over ${ENV_VALUE_MAX_BYTES} bytes.`, 'Keep environment values short; store large data in the app.');

    const directory = typeof invocation.options.dir === 'string' ? invocation.options.dir : '.';
    const fs = host.project(directory);
    const checked = await checkManifest(fs);
    if (!checked.manifest) return bad(`There is no usable app.manifest.json in ${directory === '.' ? 'the current directory' : directory}.`, 'Run platform env in an application directory (platform check shows what is wrong).');
    const connection = await connect(invocation, host, FAMILY);
    if (!connection.ok) return envelope('env', connection.diagnostics);
    const { client, controlUrl } = connection.value;
    const identity = await readIdentity(fs);
    if (identity.diagnostics.length) return envelope('env', identity.diagnostics);
    let appId = identity.appId;
    if (!appId) {
      // The first `env set` claims the project, like a first deploy.
      if (action !== 'set') return bad('This project has no app identity yet.', 'Deploy it, link it with platform link, or set a value first.');
      const claimed = await claimApp(connection.value, fs, checked.manifest.name, 'DG5133', FAMILY);
      if (!claimed.app) return envelope('env', claimed.diagnostics);
      appId = claimed.app.id;
    } else if (identity.cacheStale) {
      await writeIdentity(fs, appId, controlUrl);
    }
    const where = { appId, scope: environment };
    if (action === 'set') {
      const sent = await client.call(ROUTES.setEnv, { ...where, name: name! }, { body: { value: value! } });
      if (sent.kind !== 'ok') return envelope('env', [outcomeDiagnostic(sent, FAMILY)]);
      return envelope('env', [], { action, appId, environment, name });
    }
    if (action === 'rm') {
      const sent = await client.call(ROUTES.removeEnv, { ...where, name: name! });
      if (sent.kind !== 'ok') return envelope('env', [outcomeDiagnostic(sent, FAMILY)]);
      return envelope('env', [], { action, appId, environment, name, removed: sent.body.removed });
    }
    if (action === 'ls') {
      const sent = await client.call(ROUTES.listEnv, where);
      if (sent.kind !== 'ok') return envelope('env', [outcomeDiagnostic(sent, FAMILY)]);
      return envelope('env', [], { action, appId, environment, variables: sent.body.variables });
    }
    const file = `.platform/env.${environment}.local.json`;
    const existing = await fs.readText(file);
    if (existing !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(existing);
      } catch {
        parsed = undefined;
      }
      const problem = envLocalProblem(parsed);
      // Not ours to overwrite: it may be somebody's own file.
      if (problem) return envelope('env', [diagnostic('DG5134', `${file} is unusable: ${problem}; it was left as it is.`, { file, hint: `Remove it, or make it a ${ENV_LOCAL_FORMAT} document, then pull again.` })]);
    }
    const sent = await client.call(ROUTES.envValues, where, { check: (b) => envLocalProblem({ format: ENV_LOCAL_FORMAT, values: b.values }) === undefined });
    if (sent.kind !== 'ok') return envelope('env', [outcomeDiagnostic(sent, FAMILY)]);
    const values = sent.body.values;
    await fs.writeFile(file, `${JSON.stringify({ format: ENV_LOCAL_FORMAT, values }, null, 2)}\n`);
    return envelope('env', [], { action, appId, environment, file, names: Object.keys(values).sort() });
  },
  text({ result }) {
    if (!result) return '';
    switch (result.action) {
      case 'set':
        return `✓ set ${result.name} in ${result.environment} of ${result.appId}`;
      case 'rm':
        return result.removed ? `✓ removed ${result.name} from ${result.environment}` : `${result.name} was not set in ${result.environment}`;
      case 'ls':
        return result.variables?.length ? result.variables.map((v) => `${v.name}  (updated ${v.updatedAt})`).join('\n') : `no values in ${result.environment}`;
      case 'pull':
        return `✓ wrote ${result.file} (${result.names?.length ?? 0} values)`;
    }
  },
};
