/**
 * `platform auth login|status|logout`: builder sign-in by device code. `login` shows a code and the
 * control plane's approval page; a person signs in there and approves it, and only then does the
 * control plane hand this command a session. No secret is ever printed.
 */
import { diagnostic, envelope } from '../diagnostics';
import type { BuilderInfo } from '../deploy/protocol';
import { ControlClient } from '../deploy/client';
import { SESSION_TOKEN } from '../deploy/ids';
import { connect, CONTROL_URL_OPTION, controlUrlOf, outcomeDiagnostic, planeOf, type CodeFamily } from './control';
import type { CommandDefinition } from './types';
import { ROUTES } from '../deploy/routes';

export interface AuthResult {
  controlUrl: string;
  builder?: BuilderInfo;
  credential?: 'session' | 'service-token';
  signedOut?: boolean;
}

const FAMILY: CodeFamily = { rejected: 'DG5009', untrusted: 'DG5004', failure: 'DG5009', specific: { expired_token: 'DG5005' } };
const ACTIONS = ['login', 'status', 'logout'];

export const auth: CommandDefinition<AuthResult> = {
  name: 'auth',
  summary: 'Sign in as a builder (device code approved by a person), show who is signed in, or sign out.',
  positionals: [{ name: 'action', required: false, description: 'login, status or logout.' }],
  options: { ...CONTROL_URL_OPTION },
  async run(invocation, host) {
    const action = invocation.positionals[0];
    if (action === 'as' || action === 'clear') {
      return envelope('auth', [diagnostic('DG0001', `platform auth ${action} is not implemented in this version.`, { hint: 'Local personas are chosen in the playground and by as() in tests.' })]);
    }
    if (action === undefined || !ACTIONS.includes(action)) {
      return envelope('auth', [diagnostic('DG5000', action === undefined ? 'platform auth needs an action.' : `Unknown auth action "${action}".`, { hint: 'Use platform auth login, platform auth status or platform auth logout.' })]);
    }
    if (action === 'status') return status(invocation, host);
    const plane = planeOf(host, 'DG5009');
    if (!plane.ok) return envelope('auth', plane.diagnostics);
    const url = controlUrlOf(invocation, plane.value);
    if (!url.ok) return envelope('auth', url.diagnostics);
    const controlUrl = url.value;
    const { credentials } = plane.value;

    if (action === 'logout') {
      const stored = await credentials.read(controlUrl);
      if (stored.status === 'ok') {
        // Best effort: the session ends on the control plane too, but a local sign-out never depends on it.
        await new ControlClient(controlUrl, plane.value.fetch, stored.credential.token).call(ROUTES.logout, {});
      }
      const removed = await credentials.remove(controlUrl);
      return envelope('auth', [], { controlUrl, signedOut: removed });
    }

    const client = new ControlClient(controlUrl, plane.value.fetch);
    const started = await client.call(ROUTES.startDevice, {}, { body: {} });
    if (started.kind !== 'ok') return envelope('auth', [outcomeDiagnostic(started, FAMILY)]);
    const device = started.body;
    plane.value.notify(`To sign in, open ${device.verificationUriComplete}\nand check that it shows the code ${device.userCode}. Waiting for approval…`);
    const expiresAt = Date.parse(device.expiresAt);
    for (;;) {
      await plane.value.sleep(device.intervalMs);
      const polled = await client.call(ROUTES.pollDevice, {}, { body: { deviceCode: device.deviceCode } });
      if (polled.kind === 'refused' && polled.error.code === 'authorization_pending') {
        // The control plane decides expiry; this bound only stops a control plane that never does.
        if (Date.now() > expiresAt + 60_000) return envelope('auth', [diagnostic('DG5005', 'The device authorization expired before it was approved.', { hint: 'Run platform auth login again and approve the new code.' })]);
        continue;
      }
      if (polled.kind === 'refused' && polled.error.code === 'expired_token') {
        return envelope('auth', [diagnostic('DG5005', 'The device authorization expired before it was approved.', { hint: 'Run platform auth login again and approve the new code.' })]);
      }
      if (polled.kind === 'refused' && polled.error.code === 'access_denied') {
        return envelope('auth', [diagnostic('DG5009', 'The sign-in was denied on the approval page.', { hint: 'Run platform auth login again if that was a mistake.' })]);
      }
      if (polled.kind !== 'ok') return envelope('auth', [outcomeDiagnostic(polled, FAMILY)]);
      if (!SESSION_TOKEN.test(polled.body.token)) return envelope('auth', [diagnostic('DG5004', 'The control plane issued a credential that is not a builder session.', { hint: 'Check that --control-url names a platform control plane of this version.' })]);
      const sessionEnds = polled.body.expiresAt;
      await credentials.write(controlUrl, {
        token: polled.body.token,
        builder: polled.body.builder,
        createdAt: new Date().toISOString(),
        ...(typeof sessionEnds === 'string' && !Number.isNaN(Date.parse(sessionEnds)) ? { expiresAt: sessionEnds } : {}),
      });
      return envelope('auth', [], { controlUrl, builder: polled.body.builder, credential: 'session' });
    }
  },
  text({ result }) {
    if (!result) return '';
    if (result.signedOut !== undefined) return result.signedOut ? `✓ signed out of ${result.controlUrl}` : `not signed in to ${result.controlUrl}; nothing to do`;
    if (!result.builder) return '';
    return `✓ ${result.builder.name} (${result.builder.id}) on ${result.controlUrl}${result.credential === 'service-token' ? ', with PLATFORM_SERVICE_TOKEN' : ''}`;
  },
};

async function status(invocation: Parameters<typeof auth.run>[0], host: Parameters<typeof auth.run>[1]) {
  const connection = await connect(invocation, host, FAMILY);
  if (!connection.ok) return envelope<AuthResult>('auth', connection.diagnostics);
  const { client, controlUrl } = connection.value;
  const who = await client.call(ROUTES.whoami, {});
  if (who.kind !== 'ok') return envelope<AuthResult>('auth', [outcomeDiagnostic(who, FAMILY)]);
  return envelope<AuthResult>('auth', [], { controlUrl, builder: who.body.builder, credential: connection.value.credential });
}
