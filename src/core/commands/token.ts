/**
 * `platform token create|ls|revoke`: service tokens for automation (PLATFORM_SERVICE_TOKEN). Only an
 * interactive builder session may manage them: a service token never mints another.
 */
import { diagnostic, envelope } from '../diagnostics/index.ts';
import { SERVICE_TOKEN, SERVICE_TOKEN_ID, TOKEN_NAME, type ServiceTokenInfo, ROUTES } from '../deploy/index.ts';
import { connect, CONTROL_URL_OPTION, outcomeDiagnostic, type CodeFamily } from './control.ts';
import type { CommandDefinition } from './types.ts';

export interface TokenResult {
  action: 'create' | 'ls' | 'revoke';
  tokens?: ServiceTokenInfo[];
  token?: ServiceTokenInfo;
  /** The new token itself: shown once, by `create`, and never again. */
  secret?: string;
}

const FAMILY: CodeFamily = { rejected: 'DG5181', untrusted: 'DG5182', failure: 'DG5189', specific: { interactive_required: 'DG5181', token_not_found: 'DG5181' } };

export const token: CommandDefinition<TokenResult> = {
  name: 'token',
  summary: 'Create, list or revoke service tokens (needs an interactive sign-in).',
  positionals: [
    { name: 'action', required: false, description: 'create, ls or revoke.' },
    { name: 'id', required: false, description: 'The xstid_ id of the token to revoke.' },
  ],
  options: { name: { type: 'string', valueName: '<label>', description: 'The new token\'s label (create).' }, ...CONTROL_URL_OPTION },
  async run(invocation, host) {
    const [action, id] = invocation.positionals;
    const name = invocation.options.name;
    const bad = (message: string, hint: string) => envelope<TokenResult>('token', [diagnostic('DG5180', message, { hint })]);
    if (action !== 'create' && action !== 'ls' && action !== 'revoke') {
      return bad(action === undefined ? 'platform token needs an action.' : `Unknown token action "${action}".`, 'Use platform token create --name <label>, platform token ls or platform token revoke <xstid_…>.');
    }
    if (action === 'create' && (typeof name !== 'string' || !TOKEN_NAME.test(name))) {
      return bad(typeof name === 'string' ? `--name ${JSON.stringify(name)} is not a usable label.` : 'platform token create needs --name <label>.', 'A label is 1 to 64 letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit.');
    }
    if (action !== 'create' && name !== undefined) return bad(`--name applies only to platform token create.`, 'Leave out --name.');
    if (action === 'revoke' && (id === undefined || !SERVICE_TOKEN_ID.test(id))) {
      // A token pasted here by mistake is a secret: it is not echoed.
      const shown = id === undefined ? undefined : SERVICE_TOKEN.test(id) ? 'a service token itself' : JSON.stringify(id);
      return bad(shown ? `${shown} is not a token id.` : 'platform token revoke needs the id of the token.', 'Give the xstid_ id that platform token ls shows.');
    }
    if (action !== 'revoke' && id !== undefined) return bad(`platform token ${action} takes no id.`, 'Leave out the id.');

    const connection = await connect(invocation, host, FAMILY, { interactive: true });
    if (!connection.ok) {
      const needsSignIn = connection.diagnostics.find((d) => d.code === 'DG5002');
      if (!needsSignIn) return envelope('token', connection.diagnostics);
      const viaEnv = Boolean(host.controlPlane?.env('PLATFORM_SERVICE_TOKEN'));
      return bad(
        `Service tokens are managed only after an interactive sign-in${viaEnv ? '; PLATFORM_SERVICE_TOKEN cannot manage them' : ''}.`,
        'Run platform auth login first.',
      );
    }
    const { client } = connection.value;
    if (action === 'ls') {
      const listed = await client.call(ROUTES.listTokens, {});
      if (listed.kind !== 'ok') return envelope('token', [outcomeDiagnostic(listed, FAMILY)]);
      return envelope('token', [], { action, tokens: listed.body.tokens });
    }
    if (action === 'revoke') {
      const revoked = await client.call(ROUTES.revokeToken, { id: String(id) });
      if (revoked.kind !== 'ok') return envelope('token', [outcomeDiagnostic(revoked, FAMILY)]);
      return envelope('token', [], { action, token: revoked.body.token });
    }
    const created = await client.call(ROUTES.createToken, {}, { body: { name: String(name) }, check: (b) => SERVICE_TOKEN.test(b.secret) });
    if (created.kind !== 'ok') return envelope('token', [outcomeDiagnostic(created, FAMILY)]);
    return envelope('token', [], { action, token: created.body.token, secret: created.body.secret });
  },
  text({ result }) {
    if (!result) return '';
    if (result.action === 'ls') {
      if (!result.tokens?.length) return 'no service tokens';
      return result.tokens.map((t) => `${t.id}  ${t.name}  created ${t.createdAt}${t.lastUsedAt ? `, last used ${t.lastUsedAt}` : ''}`).join('\n');
    }
    if (result.action === 'revoke') return `✓ revoked ${result.token?.id} (${result.token?.name})`;
    return `✓ created ${result.token?.id} (${result.token?.name})\n${result.secret}\nThis is the only time the token is shown: put it in PLATFORM_SERVICE_TOKEN where it is needed.`;
  },
};
