/**
 * The playground's Deploy panel: sign in to a control plane (device code approved by a person, or a
 * pasted token), deploy the project to preview, see its deployment history, promote to production,
 * roll back, and open the hosted app. It talks to the control plane from the page (CORS allows the
 * playground's origins), signing each request with a key the page cannot export (deploy-api.ts), and
 * runs none of the app's code.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Diagnostic } from '../../core/diagnostics';
import type { AppInfo, BuilderInfo, CallRecord, DeploymentInfo, DeviceAuthorization, Environment } from '../../core/deploy';
import { exactTime, relativeTime } from '../relative-time';
import { controlUrlProblem, DeployApi, saveControlUrl, savedControlUrl, type BuiltArtifact } from './deploy-api';
import './deploy-panel.css';

export interface DeployPanelProps {
  /** A stable id of the playground project: it keys the app the project deploys to. */
  projectId: string;
  /** The app's name from its manifest: what a new app is called. */
  projectName: string;
  /** Builds the artifact (every bundle and its record), or returns the diagnostics that stopped it. */
  buildArtifact(): Promise<BuiltArtifact | { diagnostics: Diagnostic[] }>;
  /** The control plane's origin to start with (default: the last one saved, else the one npm start started, else http://localhost:4310). */
  controlUrl?: string;
}

/** What an environment served recently, as its owner reads it (`platform logs`). */
type Recent = { calls: CallRecord[]; deployment?: DeploymentInfo } | { error: string };

const ENVIRONMENTS = ['preview', 'production'] as const;
/** Calls shown per environment, newest first. */
const RECENT_CALLS = 6;

const short = (id: string) => `${id.slice(0, 15)}…`;
/** A deployment's id as the history shows it: `dep_` and its first 8 characters (the title has the whole id). */
const shortDeployment = (id: string) => id.slice(0, 12);
/** How often the history's relative times ("3 minutes ago") are said again. */
const CLOCK_MS = 30_000;

/** A call's path as the operation a person wrote: `mutation todos.add`, or the endpoint's method and path. */
function callLabel(call: CallRecord): string {
  const wire = /^\/_platform\/v0\/(query|mutation)\/(.+)$/.exec(call.path);
  return wire ? `${wire[1]} ${decodeURIComponent(wire[2]!)}` : `${call.method} ${call.path}`;
}

function RecentCalls({ recent }: { recent: Recent | undefined }) {
  if (!recent) return null;
  if ('error' in recent) return <p class="deploy-muted">Recent calls could not be read: {recent.error}</p>;
  const calls = recent.calls.slice(-RECENT_CALLS).reverse();
  const failed = recent.calls.filter((c) => c.status >= 400).length;
  return (
    <div class="deploy-calls">
      {recent.deployment && (
        <p class="deploy-muted">
          Serves <code title={recent.deployment.artifactId}>{short(recent.deployment.artifactId)}</code> since{' '}
          <time dateTime={recent.deployment.createdAt}>{new Date(recent.deployment.createdAt).toLocaleString()}</time> ({recent.deployment.kind}).{' '}
          {recent.calls.length ? `${recent.calls.length} recent call${recent.calls.length === 1 ? '' : 's'}${failed ? `, ${failed} failed` : ''}.` : 'No calls yet.'}
        </p>
      )}
      {calls.length > 0 && (
        <ul class="deploy-call-list" aria-label="Recent calls">
          {calls.map((call, index) => (
            <li key={`${call.at}-${index}`} class={call.status >= 400 ? 'failed' : ''}>
              <span class="deploy-call-head">
                <time dateTime={call.at}>{new Date(call.at).toLocaleTimeString()}</time> <span class="deploy-call-name">{callLabel(call)}</span>{' '}
                <span class="deploy-call-status">{call.status}</span> <span class="deploy-muted">{call.durationMs} ms · {call.visitor}</span>
              </span>
              {call.error && (
                <span class="deploy-call-error">
                  {call.error.code}: {call.error.message}
                  {call.error.errorId && <span class="deploy-muted"> ({call.error.errorId})</span>}
                </span>
              )}
              {call.logs.length > 0 && (
                <details>
                  <summary>{call.logs.length} console line{call.logs.length === 1 ? '' : 's'}</summary>
                  <pre class="deploy-call-logs">{call.logs.map((line) => `[${line.level}] ${line.message}`).join('\n')}</pre>
                </details>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

type Status = { kind: 'idle' } | { kind: 'busy'; text: string } | { kind: 'error'; text: string } | { kind: 'done'; text: string; url?: string };

export function DeployPanel({ projectId, projectName, buildArtifact, controlUrl: initialUrl }: DeployPanelProps) {
  const [controlUrl, setControlUrl] = useState(initialUrl ?? savedControlUrl());
  const [urlDraft, setUrlDraft] = useState(controlUrl);
  const api = useMemo(() => new DeployApi(controlUrl), [controlUrl]);
  const [builder, setBuilder] = useState<BuilderInfo | undefined>();
  const [device, setDevice] = useState<DeviceAuthorization | undefined>();
  const [tokenDraft, setTokenDraft] = useState('');
  const [app, setApp] = useState<AppInfo | undefined>();
  const [history, setHistory] = useState<DeploymentInfo[]>([]);
  const [recent, setRecent] = useState<Partial<Record<Environment, Recent>>>({});
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const alive = useRef(true);
  useEffect(() => () => void (alive.current = false), []);
  // The clock the history's relative times are said against, kept current while there is a history.
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!history.length) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), CLOCK_MS);
    return () => clearInterval(timer);
  }, [history]);

  async function refresh(appId: string) {
    const [found, listed] = await Promise.all([api.app(appId), api.deployments(appId)]);
    if (!alive.current) return;
    if (found.ok) setApp(found.value);
    if (listed.ok) setHistory(listed.value);
    if (found.ok) await refreshCalls(found.value);
  }

  /** Each serving environment's recent calls and errors. */
  async function refreshCalls(of: AppInfo) {
    const reads = await Promise.all(
      ENVIRONMENTS.map(async (environment): Promise<[Environment, Recent | undefined]> => {
        if (!of.serving[environment]) return [environment, undefined];
        const read = await api.inspect(of.id, environment, 'logs');
        return [environment, read.ok ? { calls: read.value.calls, ...(read.value.deployment ? { deployment: read.value.deployment } : {}) } : { error: read.message }];
      }),
    );
    if (alive.current) setRecent(Object.fromEntries(reads.filter(([, r]) => r)));
  }

  // Who is signed in on this control plane, and this project's app there.
  useEffect(() => {
    setBuilder(undefined);
    setApp(undefined);
    setHistory([]);
    setRecent({});
    setDevice(undefined);
    void (async () => {
      if (!(await api.signedIn())) return;
      const who = await api.whoami();
      if (!alive.current) return;
      if (!who.ok) return setStatus({ kind: 'error', text: who.message });
      setBuilder(who.value);
      const known = api.knownApp(projectId);
      if (known) void refresh(known);
    })();
  }, [api, projectId]);

  // The device flow: poll until a person approves the code on the control plane's page.
  useEffect(() => {
    if (!device) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      const answer = await api.pollDeviceLogin(device.deviceCode);
      if (!alive.current) return;
      if (answer.ok) {
        setDevice(undefined);
        setBuilder(answer.value);
        setStatus({ kind: 'done', text: `Signed in as ${answer.value.name}.` });
        const known = api.knownApp(projectId);
        if (known) void refresh(known);
        return;
      }
      if ('pending' in answer) {
        if (Date.now() > Date.parse(device.expiresAt)) {
          setDevice(undefined);
          setStatus({ kind: 'error', text: 'The code expired before it was approved. Sign in again.' });
          return;
        }
        timer = setTimeout(poll, device.intervalMs);
        return;
      }
      setDevice(undefined);
      setStatus({ kind: 'error', text: answer.message });
    };
    timer = setTimeout(poll, device.intervalMs);
    return () => clearTimeout(timer);
  }, [device, api]);

  function applyUrl(event: Event) {
    event.preventDefault();
    const problem = controlUrlProblem(urlDraft.trim());
    if (problem) return setStatus({ kind: 'error', text: `That control plane URL is not usable: ${problem}.` });
    saveControlUrl(urlDraft.trim());
    setControlUrl(urlDraft.trim());
    setStatus({ kind: 'idle' });
  }

  async function signIn() {
    setStatus({ kind: 'busy', text: 'Asking the control plane for a code…' });
    const started = await api.startDeviceLogin();
    if (!started.ok) return setStatus({ kind: 'error', text: started.message });
    setDevice(started.value);
    setStatus({ kind: 'idle' });
  }

  async function pasteToken(event: Event) {
    event.preventDefault();
    const who = await api.useToken(tokenDraft);
    setTokenDraft('');
    if (!who.ok) return setStatus({ kind: 'error', text: who.message });
    setBuilder(who.value);
    setStatus({ kind: 'done', text: `Signed in as ${who.value.name}.` });
    const known = api.knownApp(projectId);
    if (known) void refresh(known);
  }

  async function signOut() {
    await api.signOut();
    setBuilder(undefined);
    setApp(undefined);
    setHistory([]);
    setStatus({ kind: 'idle' });
  }

  async function deploy() {
    setStatus({ kind: 'busy', text: 'Building…' });
    const built = await buildArtifact();
    if ('diagnostics' in built) {
      const errors = built.diagnostics.filter((d) => d.severity === 'error');
      return setStatus({ kind: 'error', text: `The build failed (${errors.map((d) => d.code).join(', ') || 'no artifact'}); nothing was deployed. See Problems.` });
    }
    setStatus({ kind: 'busy', text: 'Deploying to preview…' });
    const target = await api.ensureApp(projectId, projectName);
    if (!target.ok) return setStatus({ kind: 'error', text: target.message });
    const sent = await api.deploy(target.value.id, built, 'preview');
    await refresh(target.value.id);
    if (!sent.ok) return setStatus({ kind: 'error', text: sent.message });
    setStatus({ kind: 'done', text: 'Deployed to preview.', url: sent.value.url });
  }

  async function act(label: string, run: () => Promise<{ ok: true; value: { url: string } } | { ok: false; message: string }>) {
    if (!app) return;
    setStatus({ kind: 'busy', text: `${label}…` });
    const done = await run();
    await refresh(app.id);
    if (!done.ok) return setStatus({ kind: 'error', text: done.message });
    setStatus({ kind: 'done', text: `${label}: done.`, url: done.value.url });
  }

  const busy = status.kind === 'busy';

  return (
    <section class="deploy-panel" aria-label="Deploy">
      <form class="deploy-row" onSubmit={applyUrl}>
        <label for="deploy-control-url">Control plane</label>
        <input id="deploy-control-url" value={urlDraft} onInput={(e) => setUrlDraft((e.target as HTMLInputElement).value)} spellcheck={false} />
        <button type="submit" disabled={urlDraft.trim() === controlUrl}>Use</button>
      </form>

      {!builder && !device && (
        <div class="deploy-signin">
          <button type="button" onClick={signIn} disabled={busy}>Sign in</button>
          <form class="deploy-row" onSubmit={pasteToken}>
            <label for="deploy-token">or paste a token</label>
            <input id="deploy-token" type="password" value={tokenDraft} placeholder="xst_…" autocomplete="off" onInput={(e) => setTokenDraft((e.target as HTMLInputElement).value)} />
            <button type="submit" disabled={!tokenDraft.trim()}>Use token</button>
          </form>
        </div>
      )}

      {device && (
        <div class="deploy-device" role="status">
          <p>
            Open <a href={device.verificationUriComplete} target="_blank" rel="noopener noreferrer">the approval page</a> and check that it shows this code:
          </p>
          <p class="deploy-code" aria-label="Sign-in code">{device.userCode}</p>
          <p class="deploy-muted">Waiting for approval… <button type="button" class="link" onClick={() => setDevice(undefined)}>Cancel</button></p>
        </div>
      )}

      {builder && (
        <>
          <div class="deploy-row">
            <span>Signed in as <strong>{builder.name}</strong></span>
            <button type="button" class="link" onClick={signOut}>Sign out</button>
          </div>
          <div class="deploy-row">
            <button type="button" class="deploy-primary" onClick={deploy} disabled={busy}>Deploy to preview</button>
            <button type="button" onClick={() => act('Promote to production', () => api.promote(app!.id))} disabled={busy || !app?.serving.preview}>Promote to production</button>
          </div>
          {app && (
            <ul class="deploy-urls">
              {ENVIRONMENTS.map((environment) => (
                <li key={environment} data-environment={environment}>
                  <span class="deploy-env">{environment}</span>{' '}
                  {app.serving[environment] ? (
                    <>
                      <a href={app.urls[environment]} target="_blank" rel="noopener noreferrer">{app.urls[environment]}</a>{' '}
                      <button type="button" class="link" onClick={() => void refreshCalls(app)}>Refresh</button>
                      <RecentCalls recent={recent[environment]} />
                    </>
                  ) : (
                    <span class="deploy-muted">nothing deployed</span>
                  )}
                </li>
              ))}
            </ul>
          )}
        </>
      )}

      {status.kind !== 'idle' && (
        <p class={`deploy-status ${status.kind}`} role={status.kind === 'error' ? 'alert' : 'status'}>
          {status.text}{' '}
          {status.kind === 'done' && status.url && (
            <a href={status.url} target="_blank" rel="noopener noreferrer">Open {status.url}</a>
          )}
        </p>
      )}

      {builder && history.length > 0 && (
        <table class="deploy-history" aria-label="Deployments">
          <thead>
            <tr><th>Deployed</th><th>Where</th><th>What</th><th>Artifact</th><th><span class="visually-hidden">Actions</span></th></tr>
          </thead>
          <tbody>
            {history.map((d) => (
              <tr key={d.id} class={d.state} data-deployment={d.id}>
                <td>
                  <time dateTime={d.createdAt} title={exactTime(d.createdAt)}>{relativeTime(d.createdAt, now)}</time>{' '}
                  <code class="deploy-muted" title={d.id}>{shortDeployment(d.id)}</code>
                </td>
                <td>
                  {d.environment}
                  {app?.live[d.environment] === d.id && <span class="deploy-live">live on {d.environment}</span>}
                </td>
                <td title={d.error?.message}>{d.kind}{d.state === 'failed' ? ' (failed)' : ''}</td>
                <td><code title={d.artifactId}>{short(d.artifactId)}</code></td>
                <td>
                  {d.state === 'completed' && d.environment === 'preview' && d.receiptId && (
                    <button type="button" class="link" disabled={busy} onClick={() => act('Promote', () => api.promote(app!.id, { receiptId: d.receiptId! }))}>Promote</button>
                  )}{' '}
                  {/* Only back to what this environment served (a completed deployment of it), and not what it serves now. */}
                  {d.state === 'completed' && app && app.serving[d.environment] !== d.artifactId && (
                    <button type="button" class="link" disabled={busy} title={`Serve this artifact in ${d.environment} again`} onClick={() => act(`Roll back ${d.environment}`, () => api.rollback(app.id, d.artifactId, d.environment))}>
                      Roll back to this
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
