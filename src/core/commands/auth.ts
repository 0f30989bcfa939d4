/**
 * `platform auth login|status|logout`: builder sign-in by device code. `login` shows a code and the
 * control plane's approval page; a person signs in there and approves it, and only then does the
 * control plane hand this command a session. No secret is ever printed.
 */
import { diagnostic, envelope } from '../diagnostics/index.ts';
import { type BuilderInfo, ControlClient, SESSION_TOKEN, ROUTES } from '../deploy/index.ts';
import { connect, CONTROL_URL_OPTION, controlUrlOf, outcomeDiagnostic, planeOf, type CodeFamily } from './control.ts';
import type { CommandDefinition } from './types.ts';
import { isPersona, PERSONA_NAMES, type PersonaName } from '../runtime/index.ts';
import { DEFAULT_PERSONA, writePersona, PERSONA_FILE } from '../local/index.ts';

export interface AuthResult {
  /** The control plane (login, status, logout). */
  controlUrl?: string;
  builder?: BuilderInfo;
  credential?: 'session' | 'service-token';
  signedOut?: boolean;
  /** `as` and `clear`: who local dev and preview visitors are now. */
  persona?: PersonaName;
}

const FAMILY: CodeFamily = { rejected: 'DG5009', untrusted: 'DG5004', failure: 'DG5009', specific: { expired_token: 'DG5005' } };
const ACTIONS = ['login', 'status', 'logout'];

export const auth: CommandDefinition<AuthResult> = {
  name: 'auth',
  summary: 'Sign in as a builder (device code approved by a person), show who is signed in, sign out; or choose the local persona (as, clear).',
  positionals: [
    { name: 'action', required: false, description: 'login, status, logout, as or clear.' },
    { name: 'persona', required: false, description: 'With as: alice, bob or guest (who local dev and preview visitors are).' },
  ],
  options: { ...CONTROL_URL_OPTION },
  async run(invocation, host) {
    const action = invocation.positionals[0];
    if (action === 'as' || action === 'clear') return persona(action, invocation.positionals[1], host);
    if (invocation.positionals[1] !== undefined) {
      return envelope('auth', [diagnostic('DG5000', `platform auth ${action ?? ''} takes no further argument (got "${invocation.positionals[1]}").`, { hint: 'Only platform auth as takes one: a persona name.' })]);
    }
    if (action === undefined || !ACTIONS.includes(action)) {
      return envelope('auth', [diagnostic('DG5000', action === undefined ? 'platform auth needs an action.' : `Unknown auth action "${action}".`, { hint: 'Use platform auth login, status, logout, as <persona> or clear.' })]);
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
    if (result.persona) return `✓ local dev and preview visitors are ${result.persona}${result.persona === DEFAULT_PERSONA ? ' (the default)' : ''}`;
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

/** `auth as <persona>` and `auth clear`: who local dev and preview visitors are, for the project in the current directory (a running server takes it at once). */
async function persona(action: 'as' | 'clear', name: string | undefined, host: Parameters<typeof auth.run>[1]) {
  const fs = host.project('.');
  if (action === 'clear') {
    if (name !== undefined) return envelope<AuthResult>('auth', [diagnostic('DG5000', `platform auth clear takes no argument (got "${name}").`, { hint: 'Write platform auth clear.' })]);
    if (host.local) await host.local.removeFile(host.local.resolve('.'), PERSONA_FILE);
    else await writePersona(fs, undefined);
    return envelope<AuthResult>('auth', [], { persona: DEFAULT_PERSONA });
  }
  if (!isPersona(name)) {
    return envelope<AuthResult>('auth', [diagnostic('DG5000', name === undefined ? 'platform auth as needs a persona.' : `"${name}" is not a persona.`, { hint: `Use one of ${PERSONA_NAMES.join(', ')}: platform auth as bob.` })]);
  }
  await writePersona(fs, name);
  return envelope<AuthResult>('auth', [], { persona: name });
}
