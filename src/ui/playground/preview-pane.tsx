/**
 * The app's preview as one persona, or two side by side. A write by one refreshes the other's queries
 * that read what it wrote over the live-update stream, as on a hosted page: only when the app's
 * `liveConnections` budget admits the other preview's connection (platform/client, core/runtime/live.ts).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { PERSONA_NAMES, type PersonaName } from '../../core/runtime/personas';
import { PreviewFrame, type DownloadOffer, type PreviewEvents, type PreviewRuntime } from '../preview/preview-frame';
import type { Span } from '../../core/diagnostics';
import { locationText } from '../console/console-panel';
import type { Generation } from './project-session';

/** A client crash as the overlay shows it: the error and, when it maps to the app's files, where. */
export interface ClientCrash {
  message: string;
  location?: { file: string; span: Span };
}

export interface PreviewPaneProps {
  generation: Generation | undefined;
  personas: PersonaName[];
  runtime: PreviewRuntime;
  events: PreviewEvents;
  /** What an uncaught error in this preview's client code was, for the overlay (undefined: no overlay). */
  crashOf?(persona: PersonaName, message: string, stack: string): ClientCrash | undefined;
  /** Opens an app file at a line (the overlay's location). */
  onOpen?(file: string, span: Span): void;
  /** Shown above the previews when they run an older build than the files (the last good one). */
  staleNote?: string;
}

function OnePreview({ persona, generation, runtime, events, crashOf, onOpen }: { persona: PersonaName } & Omit<PreviewPaneProps, 'personas'>) {
  const [crash, setCrash] = useState<ClientCrash | undefined>(undefined);
  const host = useRef<HTMLDivElement>(null);
  const [stopped, setStopped] = useState<'unresponsive' | 'navigated' | undefined>(undefined);
  const [attempt, setAttempt] = useState(0);
  const [offer, setOffer] = useState<DownloadOffer | undefined>(undefined);
  useEffect(() => {
    if (stopped) return undefined;
    const frame = new PreviewFrame(host.current!, persona, runtime, {
      ...events,
      // A preview that stops answering (a loop in client code) is ended: removing its frame ends its
      // process, so it cannot hold the page's input. It restarts on demand or with the next build.
      onUnresponsive() {
        events.onUnresponsive?.();
        frame.destroy();
        setStopped('unresponsive');
      },
      // The app tried to take its frame elsewhere (refused by the page's CSP): it is stopped, not
      // restarted on its own (an app that navigates at start would loop).
      onNavigated() {
        events.onNotice?.(`The preview as ${persona} tried to navigate away from the app; the navigation was refused and the preview stopped.`);
        frame.destroy();
        setStopped('navigated');
      },
      onOffer: setOffer,
      onError(message, stack) {
        events.onError?.(message, stack);
        // The first crash is the one to read (later ones often follow from it).
        const shown = crashOf?.(persona, message, stack);
        if (shown) setCrash((current) => current ?? shown);
      },
    });
    if (generation) frame.load({ code: generation.clientCode, css: generation.clientCss, title: generation.manifest.app?.title ?? generation.manifest.name, lang: generation.manifest.app?.language ?? 'en', publicFiles: generation.publicFiles });
    return () => frame.destroy();
    // A new frame per generation: the client starts fresh on the new code.
  }, [persona, generation?.number, runtime, stopped, attempt]);
  useEffect(() => setStopped(undefined), [generation?.number]);
  useEffect(() => setCrash(undefined), [generation?.number, attempt, persona]);
  return (
    <div class="preview" data-persona={persona} data-generation={generation?.number ?? 0}>
      <div class="preview-label">
        as <strong>{persona}</strong>
      </div>
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
      <div class="preview-host" ref={host}>
        {stopped && (
          <div class="preview-stopped" role="alert">
            <h3>Preview as {persona} stopped</h3>
            <p>
              {stopped === 'navigated'
                ? 'The app tried to navigate its preview away (a form post, a change of location or a scripted link); that is refused, so the preview was stopped.'
                : 'The preview stopped responding (a loop in the client code?), so it was stopped.'}
            </p>
            <button
              type="button"
              class="primary"
              onClick={() => {
                setStopped(undefined);
                setAttempt((n) => n + 1);
              }}
            >
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
  );
}

/** `1.2 KB`, `340 bytes` */
function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  if (bytes < 1e6) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

export function PreviewPane(props: PreviewPaneProps) {
  if (!props.generation) return <div class="preview-empty">The preview appears when the app builds.</div>;
  const previews = (
    <div class={`previews ${props.personas.length > 1 ? 'split' : ''}`}>
      {props.personas.map((persona) => (
        <OnePreview key={persona} persona={persona} generation={props.generation} runtime={props.runtime} events={props.events} {...(props.crashOf ? { crashOf: props.crashOf } : {})} {...(props.onOpen ? { onOpen: props.onOpen } : {})} />
      ))}
    </div>
  );
  if (!props.staleNote) return previews;
  return (
    <div class="previews-stale">
      <div class="preview-stale-note" role="status" data-testid="preview-stale">
        {props.staleNote}
      </div>
      {previews}
    </div>
  );
}

export function PersonaSwitcher({ persona, split, second, onPersona, onSplit, onSecond }: { persona: PersonaName; split: boolean; second?: PersonaName; onPersona(p: PersonaName): void; onSplit(split: boolean): void; onSecond?(p: PersonaName): void }) {
  return (
    <div class="persona-switcher" role="group" aria-label="Preview as">
      {PERSONA_NAMES.map((name) => (
        <button type="button" key={name} aria-pressed={name === persona} onClick={() => onPersona(name)}>
          {name}
        </button>
      ))}
      <label class="split-toggle">
        <input type="checkbox" checked={split} onChange={(e) => onSplit((e.target as HTMLInputElement).checked)} /> split
      </label>
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
