/**
 * The app's preview as one persona, or two side by side. A write by one refreshes the other's queries
 * that read what it wrote over the live-update stream, as on a hosted page: only when the app's
 * `liveConnections` budget admits the other preview's connection (platform/client, core/runtime/live.ts).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { PERSONA_NAMES, type PersonaName } from '../../core/runtime/personas';
import { PreviewFrame, type DownloadOffer, type PreviewEvents, type PreviewRuntime } from '../preview/preview-frame';
import type { Generation } from './project-session';

export interface PreviewPaneProps {
  generation: Generation | undefined;
  personas: PersonaName[];
  runtime: PreviewRuntime;
  events: PreviewEvents;
}

function OnePreview({ persona, generation, runtime, events }: { persona: PersonaName } & Omit<PreviewPaneProps, 'personas'>) {
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
    });
    if (generation) frame.load({ code: generation.clientCode, css: generation.clientCss, title: generation.manifest.app?.title ?? generation.manifest.name, lang: generation.manifest.app?.language ?? 'en', publicFiles: generation.publicFiles });
    return () => frame.destroy();
    // A new frame per generation: the client starts fresh on the new code.
  }, [persona, generation?.number, runtime, stopped, attempt]);
  useEffect(() => setStopped(undefined), [generation?.number]);
  return (
    <div class="preview" data-persona={persona} data-generation={generation?.number ?? 0}>
      <div class="preview-label">
        as <strong>{persona}</strong>
      </div>
      {offer && (
        <div class="preview-offer" role="alertdialog" aria-label="Download from the preview">
          <span>
            Save <strong>{offer.filename}</strong> ({offer.size} bytes, {offer.type.split(';')[0]}) from <code>{offer.path}</code>, as {offer.persona}?
          </span>
          <button
            type="button"
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
            <p>
              {stopped === 'navigated'
                ? 'The app tried to navigate its preview away (a form post, a change of location or a scripted link); that is refused, so the preview was stopped.'
                : 'The preview stopped responding (a loop in the client code?), so it was stopped.'}
            </p>
            <button
              type="button"
              onClick={() => {
                setStopped(undefined);
                setAttempt((n) => n + 1);
              }}
            >
              Restart the preview
            </button>
          </div>
        )}
      </div>
    </div>
  );
}

export function PreviewPane(props: PreviewPaneProps) {
  if (!props.generation) return <div class="preview-empty">The preview appears when the app builds.</div>;
  return (
    <div class={`previews ${props.personas.length > 1 ? 'split' : ''}`}>
      {props.personas.map((persona) => (
        <OnePreview key={persona} persona={persona} generation={props.generation} runtime={props.runtime} events={props.events} />
      ))}
    </div>
  );
}

export function PersonaSwitcher({ persona, split, onPersona, onSplit }: { persona: PersonaName; split: boolean; onPersona(p: PersonaName): void; onSplit(split: boolean): void }) {
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
    </div>
  );
}
