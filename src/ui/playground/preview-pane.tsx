/**
 * The app's preview as one persona, or two side by side. A write by one refreshes the other's queries
 * that read what it wrote over the live-update stream, as on a hosted page: only when the app's
 * `liveConnections` budget admits the other preview's connection (platform/client, core/runtime/live.ts).
 *
 * Above the previews: the device size they are drawn at (Full, or a phone's or a tablet's viewport,
 * centred and scaled down to fit), kept with the layout. Each preview can be reloaded (its client
 * starts again; the runtime and its data stay) and opened in a tab of its own as the same persona
 * (preview-channel.ts: the same sandboxed frame there, calling this tab's runtime).
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { whenIdle } from '../idle';
import { PERSONA_NAMES, personaSignedIn, type PersonaName } from '../../core/runtime';
import { authAskText, PreviewFrame, type DownloadOffer, type PreviewEvents, type PreviewRuntime } from '../preview/preview-frame';
import { previewTabHref, servePreviewTabs, type PreviewApp } from '../preview/preview-channel';
import type { Span } from '../../core/diagnostics';
import { locationText } from '../console/console-panel';
import { DEVICES, type Device } from './layout';
import { DEVICE_SIZES, deviceBox } from '../preview/device';
import type { NumberedGeneration } from './project-session';
import { CLIENT_BUNDLE, CLIENT_STYLES, clientPage, generationText, publicTexts } from '../../core/generation';

/** A client crash as the overlay shows it: the error and, when it maps to the app's files, where. */
export interface ClientCrash {
  message: string;
  location?: { file: string; span: Span };
}

/** What a preview loads from a build. */
export function previewAppOf(generation: NumberedGeneration): PreviewApp {
  const css = generationText(generation, CLIENT_STYLES);
  return {
    number: generation.number,
    client: generation.client,
    code: generationText(generation, CLIENT_BUNDLE) ?? '',
    ...(css !== undefined ? { css } : {}),
    ...clientPage(generation),
    publicFiles: publicTexts(generation),
  };
}

export interface PreviewPaneProps {
  generation: NumberedGeneration | undefined;
  personas: PersonaName[];
  runtime: PreviewRuntime;
  events: PreviewEvents;
  /** What an uncaught error in this preview's client code was, for the overlay (undefined: no overlay). */
  crashOf?(persona: PersonaName, message: string, stack: string): ClientCrash | undefined;
  /** Opens an app file at a line (the overlay's location). */
  onOpen?(file: string, span: Span): void;
  /** Shown above the previews when they run an older build than the files (the last good one). */
  staleNote?: string;
  /** What the pane says when no build is shown (default: the preview appears when the app builds). */
  emptyNote?: string;
  /** The device size the previews are drawn at, and its change (kept with the layout); Full without. */
  device?: Device;
  onDevice?(device: Device): void;
  /** The open project: its previews can be opened in tabs of their own (none without). */
  projectId?: string;
  /** A frame whose document loaded ahead, moved into `container` for the first preview as `persona`, if there is one. */
  takeFrame?(persona: PersonaName, container: HTMLElement): PreviewFrame | undefined;
  /**
   * Switches the preview shown as `from` to `to`: offered when the app asks to sign in or out, which
   * in the playground is choosing a persona (without it, the ask is only logged).
   */
  onPersona?(from: PersonaName, to: PersonaName): void;
}

/**
 * The stage's size as it changes (a ResizeObserver, whose first report comes before the first paint).
 * `now`: read it in the first commit too (a device box is drawn from it); reading it forces the
 * layout of the whole workspace in the middle of its first commit, so a full-size preview does not.
 */
function useSize(element: { current: HTMLElement | null }, now: boolean): { width: number; height: number } {
  const [size, setSize] = useState({ width: 0, height: 0 });
  useLayoutEffect(() => {
    const target = element.current;
    if (!target) return undefined;
    const observer = new ResizeObserver(() => setSize({ width: target.clientWidth, height: target.clientHeight }));
    observer.observe(target);
    if (now) setSize({ width: target.clientWidth, height: target.clientHeight });
    return () => observer.disconnect();
  }, []);
  return size;
}

export interface OnePreviewProps {
  persona: PersonaName;
  app: PreviewApp | undefined;
  runtime: PreviewRuntime;
  events: PreviewEvents;
  crashOf?: PreviewPaneProps['crashOf'];
  onOpen?: PreviewPaneProps['onOpen'];
  device?: Device;
  /** The project, for "Open in new tab" (no link without). */
  projectId?: string;
  takeFrame?: PreviewPaneProps['takeFrame'];
  /** The personas this preview may switch to when the app asks to sign in or out (none: the ask is only logged). */
  switchTo?: { personas: PersonaName[]; choose(persona: PersonaName): void };
}

export function OnePreview({ persona, app, runtime, events, crashOf, onOpen, device = 'full', projectId, takeFrame, switchTo }: OnePreviewProps) {
  const [crash, setCrash] = useState<ClientCrash | undefined>(undefined);
  const host = useRef<HTMLDivElement>(null);
  const stage = useRef<HTMLDivElement>(null);
  const stageSize = useSize(stage, device !== 'full');
  const [stopped, setStopped] = useState<'unresponsive' | 'navigated' | undefined>(undefined);
  const [attempt, setAttempt] = useState(0);
  const [offer, setOffer] = useState<DownloadOffer | undefined>(undefined);
  /** The app asked to sign in or out: answered in the preview with the personas that stand for it. */
  const [authAsk, setAuthAsk] = useState<'sign-in' | 'sign-out' | undefined>(undefined);
  /** A frame whose document has loaded, hidden, kept for the next build (or reload) of this persona on this runtime. */
  const spare = useRef<{ frame: PreviewFrame; persona: PersonaName; runtime: PreviewRuntime } | undefined>(undefined);
  useEffect(() => () => spare.current?.frame.destroy(), []);
  /** The frame showing the app, and the build it shows now (a later one than it loaded when only the server changed since). */
  const shown = useRef<{ frame: PreviewFrame; number: number | undefined } | undefined>(undefined);
  // A layout effect: the new build's frame starts as this render commits, not a frame later (an
  // effect waits for the next paint).
  useLayoutEffect(() => {
    if (stopped) return undefined;
    let frame: PreviewFrame | undefined;
    const handlers: PreviewEvents = {
      ...events,
      // A preview that stops answering (a loop in client code) is ended: removing its frame ends its
      // process, so it cannot hold the page's input. It restarts on demand or with the next build.
      onUnresponsive() {
        events.onUnresponsive?.();
        frame?.destroy();
        setStopped('unresponsive');
      },
      // The app tried to take its frame elsewhere (refused by the page's CSP): it is stopped, not
      // restarted on its own (an app that navigates at start would loop).
      onNavigated() {
        events.onNotice?.(`The preview as ${persona} tried to navigate away from the app; the navigation was refused and the preview stopped.`);
        frame?.destroy();
        setStopped('navigated');
      },
      onOffer: setOffer,
      ...(switchTo
        ? {
            onAuthAsk(kind: 'sign-in' | 'sign-out') {
              events.onNotice?.(authAskText(kind));
              setAuthAsk(kind);
            },
          }
        : {}),
      onError(message, stack) {
        events.onError?.(message, stack);
        // The first crash is the one to read (later ones often follow from it).
        const shown = crashOf?.(persona, message, stack);
        if (shown) setCrash((current) => current ?? shown);
      },
      onLoaded() {
        events.onLoaded?.();
        // Once this preview is up, the next one's document loads, out of its way.
        if (spare.current || !host.current) return;
        const container = host.current;
        whenIdle(() => {
          if (spare.current || !container.isConnected) return;
          const next = new PreviewFrame(container, persona, runtime, {}, { spare: true });
          // A React app's vendor script runs there now, out of the next build's way.
          if (app) next.preload(app.code);
          spare.current = { frame: next, persona, runtime };
        });
      },
    };
    // The spare's document has loaded already: the client starts at once. One made for another persona
    // or runtime is ended.
    const kept = spare.current;
    spare.current = undefined;
    if (kept && kept.persona === persona && kept.runtime === runtime) {
      frame = kept.frame;
      frame.activate(handlers);
    } else {
      kept?.frame.destroy();
      // A frame loaded ahead (as the project was made) comes in with its document: the client starts at once.
      const ahead = takeFrame?.(persona, host.current!);
      if (ahead) ahead.activate(handlers);
      frame = ahead ?? new PreviewFrame(host.current!, persona, runtime, handlers);
    }
    if (app) frame.load(app);
    const mine = { frame, number: app?.number };
    shown.current = mine;
    return () => {
      if (shown.current === mine) shown.current = undefined;
      frame.destroy();
    };
    // A new frame per client build, and per reload: the client starts fresh (the runtime and its data stay).
  }, [persona, app?.client, runtime, stopped, attempt]);
  // A build that changed the server alone: the page stays and runs its queries again on the new server,
  // unless it cannot (preview-frame.ts, serverReplaced): then it loads again. Asked as the render
  // commits (a layout effect), not after the next paint.
  useLayoutEffect(() => {
    const now = shown.current;
    if (!app || !now || now.number === app.number) return;
    now.number = app.number;
    void now.frame.serverReplaced().then((ok) => {
      if (ok) events.onRefreshed?.();
      else if (shown.current === now) setAttempt((n) => n + 1);
    });
  }, [app?.number]);
  useEffect(() => setStopped(undefined), [app?.number]);
  useEffect(() => setCrash(undefined), [app?.client, attempt, persona]);
  const reload = () => {
    setStopped(undefined);
    setOffer(undefined);
    setAttempt((n) => n + 1);
  };
  const box = deviceBox(device, stageSize);
  return (
    <div class="preview" data-persona={persona} data-generation={app?.number ?? 0} data-device={device}>
      <div class="preview-label">
        <span>
          as <strong>{persona}</strong>
        </span>
        <span class="preview-actions">
          <button type="button" class="link" onClick={reload} aria-label={`Reload the preview as ${persona}`} title="Start the app's client again (the data stays)">
            ↻ Reload
          </button>
          {projectId && (
            <a class="link" href={previewTabHref(projectId, persona)} target="_blank" rel="noopener" aria-label={`Open the preview as ${persona} in a new tab`} title="The same preview in a tab of its own, as the same persona">
              ↗ New tab
            </a>
          )}
        </span>
      </div>
      {authAsk && switchTo && <AuthAnswer kind={authAsk} personas={switchTo.personas.filter((p) => p !== persona && personaSignedIn(p) === (authAsk === 'sign-in'))} onChoose={switchTo.choose} onDismiss={() => setAuthAsk(undefined)} />}
      {offer && (
        <div class="preview-offer" role="alertdialog" aria-label="Download from the preview">
          <span>
            Save <strong>{offer.filename}</strong>? <span class="muted">{formatSize(offer.size)}, {offer.type.split(';')[0]}, from <code>{offer.path}</code> as {offer.persona}</span>
          </span>
          <button
            type="button"
            class="primary"
            onClick={() => {
              offer.save();
              setOffer(undefined);
            }}
          >
            Save
          </button>
          <button type="button" onClick={() => setOffer(undefined)}>
            Dismiss
          </button>
        </div>
      )}
      <div class={`preview-stage${box ? ' device' : ''}`} ref={stage}>
        <div
          class="preview-host"
          ref={host}
          data-testid="preview-viewport"
          style={box ? { position: 'absolute', width: `${box.width}px`, height: `${box.height}px`, left: `${box.left}px`, top: `${box.top}px`, transform: `scale(${box.scale})`, transformOrigin: '0 0' } : undefined}
        >
          {stopped && (
            <div class="preview-stopped" role="alert">
              <h3>Preview as {persona} stopped</h3>
              <p>
                {stopped === 'navigated'
                  ? 'The app tried to navigate its preview away (a form post, a change of location or a scripted link); that is refused, so the preview was stopped.'
                  : 'The preview stopped responding (a loop in the client code?), so it was stopped.'}
              </p>
              <button type="button" class="primary" onClick={reload}>
                Restart the preview
              </button>
            </div>
          )}
          {crash && !stopped && (
            <div class="preview-crash" role="alert" aria-label={`The preview as ${persona} crashed`}>
              <h3>Uncaught error in the client code</h3>
              <pre>{crash.message}</pre>
              <div class="actions">
                {crash.location && (
                  <button type="button" class="link" onClick={() => onOpen?.(crash.location!.file, crash.location!.span)}>
                    {locationText(crash.location)}
                  </button>
                )}
                <button type="button" onClick={() => setCrash(undefined)}>
                  Dismiss
                </button>
              </div>
            </div>
          )}
        </div>
      </div>
    </div>
  );
}

/**
 * The answer to an app's `signIn()` or `signOut()` in the playground: people are personas here, so it
 * offers the personas that stand for a signed-in person (or the signed-out guest).
 */
function AuthAnswer({ kind, personas, onChoose, onDismiss }: { kind: 'sign-in' | 'sign-out'; personas: PersonaName[]; onChoose(persona: PersonaName): void; onDismiss(): void }) {
  const signIn = kind === 'sign-in';
  return (
    <div class="preview-offer preview-auth" role="status" data-testid="preview-auth-notice">
      <span>
        <strong>{signIn ? 'The app asked to sign in.' : 'The app asked to sign out.'}</strong>{' '}
        {signIn
          ? 'In the playground, personas stand for signed-in people (deployed, people sign in with a passkey).'
          : 'In the playground, the guest persona stands for a signed-out visitor.'}
        {personas.length > 0 && ' Preview as:'}
      </span>
      {personas.map((name) => (
        <button type="button" key={name} onClick={() => onChoose(name)}>
          {name}
        </button>
      ))}
      <button type="button" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}

/** `1.2 KB`, `340 bytes` */
function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  if (bytes < 1e6) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Serves this project's preview tabs while the pane is open, announcing each new build to them. */
function usePreviewTabs(projectId: string | undefined, runtime: PreviewRuntime, app: PreviewApp | undefined, events: PreviewEvents): void {
  const current = useRef(app);
  current.current = app;
  const logged = useRef(events);
  logged.current = events;
  const served = useRef<ReturnType<typeof servePreviewTabs> | undefined>(undefined);
  useEffect(() => {
    if (!projectId || typeof BroadcastChannel === 'undefined') return undefined;
    // A tab's calls show in the Events with the previews' own.
    const serving = servePreviewTabs(projectId, runtime, () => current.current, { onCall: (entry) => logged.current.onCall?.(entry), onLiveOff: () => logged.current.onLiveOff?.() });
    served.current = serving;
    // A tab closed or reloaded with the project: the preview tabs wait for it.
    const close = () => serving.close();
    addEventListener('pagehide', close);
    return () => {
      removeEventListener('pagehide', close);
      served.current = undefined;
      serving.close();
    };
  }, [projectId, runtime]);
  useEffect(() => served.current?.changed(), [app?.number]);
}

export function PreviewPane(props: PreviewPaneProps) {
  const app = props.generation ? previewAppOf(props.generation) : undefined;
  usePreviewTabs(props.projectId, props.runtime, app, props.events);
  if (!props.generation) return <div class="preview-empty" data-testid="preview-empty">{props.emptyNote ?? 'The preview appears when the app builds.'}</div>;
  const device = props.device ?? 'full';
  const previews = (
    <div class={`previews ${props.personas.length > 1 ? 'split' : ''}`}>
      {props.personas.map((persona) => (
        <OnePreview
          key={persona}
          persona={persona}
          app={app}
          runtime={props.runtime}
          events={props.events}
          device={device}
          {...(props.projectId ? { projectId: props.projectId } : {})}
          {...(props.crashOf ? { crashOf: props.crashOf } : {})}
          {...(props.onOpen ? { onOpen: props.onOpen } : {})}
          {...(props.takeFrame ? { takeFrame: props.takeFrame } : {})}
          {...(props.onPersona ? { switchTo: { personas: PERSONA_NAMES.filter((p) => !props.personas.includes(p)), choose: (to: PersonaName) => props.onPersona!(persona, to) } } : {})}
        />
      ))}
    </div>
  );
  return (
    <div class="previews-column">
      {props.onDevice && (
        <div class="preview-toolbar" role="group" aria-label="Preview size">
          {DEVICES.map((name) => (
            <button type="button" key={name} aria-pressed={name === device} onClick={() => props.onDevice?.(name)}>
              {DEVICE_SIZES[name].label}
            </button>
          ))}
        </div>
      )}
      {props.staleNote && (
        <div class="preview-stale-note" role="status" data-testid="preview-stale">
          {props.staleNote}
        </div>
      )}
      {previews}
    </div>
  );
}

/** The personas to preview as; with `onSplit`, the toggle of a second preview beside the first (the embed has one preview, and no toggle). */
export function PersonaSwitcher({ persona, split, second, onPersona, onSplit, onSecond }: { persona: PersonaName; split: boolean; second?: PersonaName; onPersona(p: PersonaName): void; onSplit?(split: boolean): void; onSecond?(p: PersonaName): void }) {
  return (
    <div class="persona-switcher" role="group" aria-label="Preview as">
      {PERSONA_NAMES.map((name) => (
        <button type="button" key={name} aria-pressed={name === persona} onClick={() => onPersona(name)}>
          {name}
        </button>
      ))}
      {onSplit && (
        <label class="split-toggle">
          <input type="checkbox" checked={split} onChange={(e) => onSplit((e.target as HTMLInputElement).checked)} /> split
        </label>
      )}
      {split && second && onSecond && (
        <label class="split-toggle">
          with
          <select value={second} onChange={(e) => onSecond((e.target as HTMLSelectElement).value as PersonaName)} aria-label="Second preview as">
            {PERSONA_NAMES.filter((name) => name !== persona).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}
