/**
 * `platform domains add|ls|status|remove`: custom hostnames for an app's production. `add` attaches a
 * hostname and prints the TXT record that verifies it; `status` checks it again; `remove` detaches it
 * (repeat it while cleanup is pending, DG5197).
 */
import { diagnostic, envelope, type CommandEnvelope } from '../diagnostics/index.ts';
import { hostnameProblem, normalizeHostname, type DomainInfo, ROUTES } from '../deploy/index.ts';
import { connect, CONTROL_URL_OPTION, DIR_OPTION, outcomeDiagnostic, resolveApp, type CodeFamily } from './control.ts';
import type { CommandDefinition } from './types.ts';

export interface DomainsResult {
  action: 'add' | 'ls' | 'status' | 'remove';
  domain?: DomainInfo;
  domains?: DomainInfo[];
  /** `remove`: the hostname that no longer routes and is fully released. */
  removed?: string;
}

const FAMILY: CodeFamily = {
  rejected: 'DG5191',
  untrusted: 'DG5192',
  failure: 'DG5199',
  specific: {
    app_not_found: 'DG5193',
    app_deleted: 'DG5193',
    not_owner: 'DG5193',
    domain_not_found: 'DG5193',
    domain_unavailable: 'DG5194',
    no_production: 'DG5195',
    provider_unavailable: 'DG5196',
    cleanup_pending: 'DG5197',
  },
};

const ACTIONS = ['add', 'ls', 'status', 'remove'] as const;

export const domains: CommandDefinition<DomainsResult> = {
  name: 'domains',
  summary: 'Attach, list, verify and remove custom domains of an app\'s production.',
  positionals: [
    { name: 'action', required: false, description: 'add, ls, status or remove.' },
    { name: 'hostname', required: false, description: 'A fully qualified hostname such as app.example.com (add, status, remove).' },
  ],
  options: {
    app: { type: 'string', valueName: '<app>', description: 'The app (appId or name) for add and ls (default: the project\'s app).' },
    ...DIR_OPTION,
    ...CONTROL_URL_OPTION,
  },
  async run(invocation, host): Promise<CommandEnvelope<DomainsResult>> {
    const [action, given] = invocation.positionals;
    const bad = (message: string, hint: string) => envelope<DomainsResult>('domains', [diagnostic('DG5190', message, { hint })]);
    if (!ACTIONS.includes(action as (typeof ACTIONS)[number])) {
      return bad(action === undefined ? 'platform domains needs an action.' : `Unknown domains action "${action}".`, 'Use platform domains add <hostname>, ls, status <hostname> or remove <hostname>.');
    }
    const verb = action as DomainsResult['action'];
    if (verb === 'ls' && given !== undefined) return bad('platform domains ls takes no hostname.', 'Use platform domains status <hostname> for one domain.');
    if ((verb === 'status' || verb === 'remove') && invocation.options.app !== undefined) return bad(`--app applies only to add and ls.`, 'Leave out --app: the hostname names the domain.');
    let hostname = '';
    if (verb !== 'ls') {
      if (given === undefined) return bad(`platform domains ${verb} needs a hostname.`, `Use platform domains ${verb} app.example.com.`);
      hostname = normalizeHostname(given);
      const problem = hostnameProblem(hostname);
      if (problem) return bad(`${JSON.stringify(given)} is not a usable hostname: ${problem}.`, 'Give a fully qualified ASCII hostname such as app.example.com: no scheme, port, path or wildcard.');
    }

    const connection = await connect(invocation, host, FAMILY);
    if (!connection.ok) return envelope('domains', connection.diagnostics);
    const { client } = connection.value;
    const appOption = typeof invocation.options.app === 'string' ? invocation.options.app : undefined;
    const appOf = async () => {
      const fs = host.project(typeof invocation.options.dir === 'string' ? invocation.options.dir : '.');
      return resolveApp(connection.value, fs, appOption, { invocation: 'DG5190', noApp: 'DG5193', family: FAMILY });
    };

    if (verb === 'add') {
      const app = await appOf();
      if (!app.ok) return envelope('domains', app.diagnostics);
      const added = await client.call(ROUTES.addDomain, { appId: app.value }, { body: { hostname } });
      if (added.kind !== 'ok') return envelope('domains', [outcomeDiagnostic(added, FAMILY)]);
      return envelope('domains', [], { action: verb, domain: added.body.domain });
    }
    if (verb === 'ls') {
      let appId: string | undefined;
      if (appOption !== undefined) {
        const app = await appOf();
        if (!app.ok) return envelope('domains', app.diagnostics);
        appId = app.value;
      }
      // The control plane answers for one app only when the caller owns it (DG5193 otherwise, as for add).
      const listed = await client.call(ROUTES.listDomains, {}, appId === undefined ? {} : { query: { app: appId }, check: (b) => b.domains.every((d) => d.appId === appId) });
      if (listed.kind !== 'ok') return envelope('domains', [outcomeDiagnostic(listed, FAMILY)]);
      return envelope('domains', [], { action: verb, domains: listed.body.domains });
    }
    if (verb === 'status') {
      const status = await client.call(ROUTES.domainStatus, { hostname });
      if (status.kind !== 'ok') return envelope('domains', [outcomeDiagnostic(status, FAMILY)]);
      return envelope('domains', [], { action: verb, domain: status.body.domain });
    }
    const removed = await client.call(ROUTES.removeDomain, { hostname }, { check: (b) => b.hostname === hostname });
    if (removed.kind !== 'ok') return envelope('domains', [outcomeDiagnostic(removed, FAMILY)]);
    return envelope('domains', [], { action: verb, removed: hostname });
  },
  text({ result }) {
    if (!result) return '';
    const describe = (d: DomainInfo) =>
      d.state === 'active'
        ? `${d.hostname}  active → ${d.appId} (production), verified ${d.verifiedAt}`
        : d.state === 'pending'
          ? `${d.hostname}  pending verification for ${d.appId}: publish TXT ${d.verification.name} = "${d.verification.value}", then run platform domains status ${d.hostname}${d.verifyBy ? ` (unverified, the claim lapses at ${d.verifyBy})` : ''}`
          : `${d.hostname}  cleanup pending: run platform domains remove ${d.hostname} again`;
    if (result.action === 'remove') return `✓ removed ${result.removed}`;
    if (result.action === 'ls') return result.domains?.length ? result.domains.map(describe).join('\n') : 'no custom domains';
    return result.domain ? describe(result.domain) : '';
  },
};
