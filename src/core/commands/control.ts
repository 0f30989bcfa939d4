/**
 * What the commands that talk to a control plane share: the control URL (DG5001), the credential
 * (PLATFORM_SERVICE_TOKEN or the stored builder session: DG5002, DG5003, DG5008), the project identity,
 * and the mapping from the control plane's answers to each command family's codes. A credential is bound
 * to one origin (see `connect`): a control URL naming another is refused before anything is sent.
 */
import type { Result } from '../result.ts';
import { diagnostic, type Diagnostic, type DiagnosticCode } from '../diagnostics/index.ts';
import { ControlClient, type BoundCredential, type ControlOutcome, type ControlPlaneHost, controlUrlProblem, SERVICE_TOKEN, SESSION_TOKEN, readIdentity, writeIdentity, DEFAULT_CONTROL_URL, type ControlError, type ControlErrorCode, ROUTES } from '../deploy/index.ts';
import type { WritableFileSystem } from '../fs/index.ts';
import type { CommandHost, Invocation, OptionSpec } from './types.ts';

export const CONTROL_URL_OPTION: Record<string, OptionSpec> = {
  'control-url': { type: 'string', valueName: '<origin>', description: `The control plane's origin (default: PLATFORM_CONTROL_URL or ${DEFAULT_CONTROL_URL}).` },
};
export const DIR_OPTION: Record<string, OptionSpec> = {
  dir: { type: 'string', valueName: '<directory>', description: 'The project directory (default: the current directory).' },
};

/** The codes one command family uses for the outcomes every control plane call can have. */
export interface CodeFamily {
  /** The control plane refused for a reason with no more specific code. */
  rejected: DiagnosticCode;
  /** The answer could not be trusted (not JSON, another protocol, an unexpected shape). */
  untrusted: DiagnosticCode;
  /** No answer, or a failure with no more specific code. */
  failure: DiagnosticCode;
  /** More specific codes by the control plane's error code. */
  specific?: Partial<Record<ControlErrorCode, DiagnosticCode>>;
}

export type Resolved<T> = Result<{ value: T }, { diagnostics: Diagnostic[] }>;

export interface Connection {
  controlUrl: string;
  client: ControlClient;
  /** Which credential the client carries. */
  credential: 'service-token' | 'session';
  plane: ControlPlaneHost;
}

function fail<T>(...diagnostics: Diagnostic[]): Resolved<T> {
  return { ok: false, diagnostics };
}

function checkedControlUrl(value: string, source: string): Resolved<string> {
  const problem = controlUrlProblem(value);
  if (problem) {
    return fail(diagnostic('DG5001', `${source} ${JSON.stringify(value)} is not usable: ${problem}.`, { hint: `Give an exact origin such as ${DEFAULT_CONTROL_URL} or https://control.example.com (no path; plain HTTP only on localhost).` }));
  }
  return { ok: true, value };
}

/** The configured control plane: PLATFORM_CONTROL_URL, else the local default (DG5001). No command option changes it. */
export function configuredControlUrl(plane: ControlPlaneHost): Resolved<string> {
  return checkedControlUrl(plane.env('PLATFORM_CONTROL_URL') || DEFAULT_CONTROL_URL, 'PLATFORM_CONTROL_URL');
}

/** The control plane's origin: `--control-url`, then PLATFORM_CONTROL_URL, then the local default (DG5001). */
export function controlUrlOf(invocation: Invocation, plane: ControlPlaneHost): Resolved<string> {
  const given = invocation.options['control-url'];
  return typeof given === 'string' ? checkedControlUrl(given, '--control-url') : configuredControlUrl(plane);
}

/** The host's control plane access, or the family's failure code when this host has none. */
export function planeOf(host: CommandHost, failure: DiagnosticCode): Resolved<ControlPlaneHost> {
  if (!host.controlPlane) return fail(diagnostic(failure, 'This host cannot reach a control plane.', { hint: 'Run the command with the platform CLI.' }));
  return { ok: true, value: host.controlPlane };
}

/**
 * Connects with a credential: PLATFORM_SERVICE_TOKEN when it is set (unless `interactive` is asked for),
 * otherwise the builder session `auth login` stored for that control plane. Each credential is bound to
 * one origin and is sent nowhere else: the service token to the configured control plane
 * (PLATFORM_CONTROL_URL, else the local default), a session to the origin it is stored under. A control
 * URL (`--control-url`, an agent's `controlUrl`) naming another origin has no credential there: DG5002,
 * and no request is made.
 */
export async function connect(invocation: Invocation, host: CommandHost, family: CodeFamily, options: { interactive?: boolean } = {}): Promise<Resolved<Connection>> {
  const plane = planeOf(host, family.failure);
  if (!plane.ok) return plane;
  const url = controlUrlOf(invocation, plane.value);
  if (!url.ok) return url;
  const controlUrl = url.value;
  const serviceToken = plane.value.env('PLATFORM_SERVICE_TOKEN');
  if (serviceToken && !options.interactive) {
    // The value is a secret even when malformed: it is never echoed.
    if (!SERVICE_TOKEN.test(serviceToken)) {
      return fail(diagnostic('DG5003', 'PLATFORM_SERVICE_TOKEN is set to a value that is not a service token.', { hint: 'Set it to a token made by platform token create (xst_ followed by 43 characters), or unset it.' }));
    }
    const configured = configuredControlUrl(plane.value);
    if (!configured.ok) return configured;
    if (configured.value !== controlUrl) {
      const from = plane.value.env('PLATFORM_CONTROL_URL') ? 'PLATFORM_CONTROL_URL' : 'the default control URL (PLATFORM_CONTROL_URL is not set)';
      return fail(diagnostic('DG5002', `PLATFORM_SERVICE_TOKEN is configured for ${configured.value} (${from}); it is not sent to ${controlUrl}, and nothing was.`, {
        hint: `Leave out the control URL to use ${configured.value}. For ${controlUrl}, set PLATFORM_CONTROL_URL=${controlUrl} with a token that control plane issued, or unset PLATFORM_SERVICE_TOKEN to use the builder session platform auth login stored for it.`,
        detail: { code: 'credential_origin', configuredOrigin: configured.value },
      }));
    }
    const credential: BoundCredential = { token: serviceToken, origin: configured.value };
    return { ok: true, value: { controlUrl, client: new ControlClient(controlUrl, plane.value.fetch, credential), credential: 'service-token', plane: plane.value } };
  }
  const stored = await plane.value.credentials.read(controlUrl);
  if (stored.status === 'invalid') {
    return fail(diagnostic('DG5008', `The stored credential for ${controlUrl} is unusable: ${stored.reason}.`, { hint: `Sign in again with platform auth login (it rewrites ${plane.value.credentials.location}).` }));
  }
  if (stored.status === 'none' || !SESSION_TOKEN.test(stored.credential.token)) {
    if (stored.status === 'ok') return fail(diagnostic('DG5008', `The stored credential for ${controlUrl} is not a builder session.`, { hint: 'Sign in again with platform auth login.' }));
    return fail(diagnostic('DG5002', `No builder credential is stored for ${controlUrl}.`, { hint: options.interactive ? 'Sign in interactively with platform auth login (a service token cannot do this).' : 'Sign in with platform auth login, or set PLATFORM_SERVICE_TOKEN.' }));
  }
  // A session known to be expired is not sent: the answer is known (DG5002), and the token stays home.
  const { expiresAt } = stored.credential;
  if (expiresAt !== undefined && Date.parse(expiresAt) <= Date.now()) {
    return fail(diagnostic('DG5002', `The builder session stored for ${controlUrl} expired at ${expiresAt}.`, { hint: 'Sign in again with platform auth login.', detail: { code: 'credential_expired', expiresAt } }));
  }
  // Read under the exact origin it was stored for, so it is bound to that origin.
  const credential: BoundCredential = { token: stored.credential.token, origin: controlUrl };
  return { ok: true, value: { controlUrl, client: new ControlClient(controlUrl, plane.value.fetch, credential), credential: 'session', plane: plane.value } };
}

function quotaMessage(error: ControlError): string {
  return error.message;
}

/** The diagnostic for a call that did not succeed, in the codes of the command's family. */
export function outcomeDiagnostic(outcome: Exclude<ControlOutcome<unknown>, { kind: 'ok' }>, family: CodeFamily): Diagnostic {
  if (outcome.kind === 'unreachable') return diagnostic(family.failure, outcome.message, { hint: 'Start the control plane (npm run control-plane) or check --control-url.' });
  if (outcome.kind === 'untrusted') return diagnostic(family.untrusted, outcome.message, { hint: 'Check that --control-url names a platform control plane of this version.' });
  const { error } = outcome;
  const specific = family.specific?.[error.code];
  if (specific) return diagnostic(specific, error.code === 'quota_exceeded' ? quotaMessage(error) : error.message, { detail: { code: error.code, ...(error.resetAt ? { resetAt: error.resetAt } : {}) } });
  if (error.code === 'credential_expired') {
    const hint = error.credential === 'service-token' ? 'Create a new token with platform token create (after platform auth login) and set PLATFORM_SERVICE_TOKEN to it.' : 'Sign in again with platform auth login.';
    return diagnostic('DG5002', error.message, { hint, detail: { code: error.code, ...(error.resetAt ? { expiresAt: error.resetAt } : {}) } });
  }
  if (error.code === 'unauthorized') return diagnostic('DG5002', `The control plane does not accept the credential: ${error.message}`, { hint: 'Sign in again with platform auth login, or set PLATFORM_SERVICE_TOKEN to a live token.' });
  if (error.code === 'not_owner') return diagnostic('DG5111', error.message, { hint: 'Deploy your own copy: platform link --new gives this project a new identity.' });
  return diagnostic(family.rejected, error.message, { detail: { code: error.code, ...(error.resetAt ? { resetAt: error.resetAt } : {}) } });
}

/** The app a command acts on: a positional reference (appId or name among the builder's apps), else the project identity. */
export async function resolveApp(
  connection: Connection,
  fs: WritableFileSystem,
  reference: string | undefined,
  codes: { invocation: DiagnosticCode; noApp: DiagnosticCode; family: CodeFamily },
): Promise<Resolved<string>> {
  if (reference !== undefined) {
    if (/^app_/.test(reference)) return { ok: true, value: reference };
    const listed = await connection.client.call(ROUTES.listApps, {});
    if (listed.kind !== 'ok') return fail(outcomeDiagnostic(listed, codes.family));
    const matches = listed.body.apps.filter((app) => app.name === reference && app.state !== 'deleted');
    if (matches.length === 1) return { ok: true, value: matches[0]!.id };
    if (matches.length > 1) return fail(diagnostic(codes.noApp, `More than one of your apps is named ${reference}.`, { hint: `Name it by its appId: ${matches.map((m) => m.id).join(', ')}.` }));
    return fail(diagnostic(codes.noApp, `None of your apps is named ${reference}.`, { hint: 'List your apps with platform link.' }));
  }
  const identity = await readIdentity(fs);
  if (identity.diagnostics.length) return fail(...identity.diagnostics);
  if (!identity.appId) return fail(diagnostic(codes.invocation, 'This project has no app identity (no platform.project.json).', { hint: 'Deploy it first, link it with platform link --app <appId>, or name the app.' }));
  return { ok: true, value: identity.appId };
}

/** Writes the identity again when only its cache was stale. */
export async function refreshIdentityCache(fs: WritableFileSystem, appId: string, controlUrl: string): Promise<void> {
  await writeIdentity(fs, appId, controlUrl);
}
