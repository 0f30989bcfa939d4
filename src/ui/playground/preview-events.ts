/**
 * What the playground does with its previews' events (preview-frame.ts `PreviewEvents`): each goes to
 * the session's event log (the Events panel), the first load, error or hang opens the way for the
 * editor (first-preview.ts), and a load marks `platform:preview-ready` for the bench. A manifest that
 * allows no live connection is said once, not at every preview load, until a connection is admitted
 * again. Console lines go to the Console panel (`onConsole`).
 */
import type { PreviewEvents } from '../preview/preview-frame';
import type { FirstPreview } from './first-preview';
import type { SessionContext } from '../session/session-state';

export const LIVE_OFF_MESSAGE =
  "Live updates are off: app.manifest.json allows no live connections (budgets.liveConnections is 0), so each preview refreshes after its own writes only. Allow some to let one persona's writes reach the other's preview.";

export interface PreviewEventSinks {
  log: SessionContext['log'];
  firstPreview: Pick<FirstPreview, 'open'>;
  onConsole: NonNullable<PreviewEvents['onConsole']>;
}

/**
 * The previews' events for the generation numbered `generation` (undefined before the first). `liveOff`
 * holds whether live updates were said to be off: kept by the caller across renders (a ref), so it is
 * said once per project, not once per generation.
 */
export function previewEvents(sinks: PreviewEventSinks, generation: number | undefined, liveOff: { current: boolean }): PreviewEvents {
  const { log, firstPreview } = sinks;
  return {
    onConsole: sinks.onConsole,
    onCall: (entry) => {
      // A connection admitted: a later manifest that allows none is said again.
      if (entry.operation === 'live connection' && entry.status === 200) liveOff.current = false;
      log('runtime.call', { ...entry, durationMs: Math.round(entry.durationMs * 10) / 10 });
    },
    onLiveOff: () => {
      // Every preview load asks once and is refused: said once, as information, not a failure each time.
      if (liveOff.current) return;
      liveOff.current = true;
      log('preview.live', { message: LIVE_OFF_MESSAGE });
    },
    onError: (message) => {
      firstPreview.open();
      log('preview.error', { message });
    },
    onLoaded: () => {
      firstPreview.open();
      // For `npm run bench` (bench/playground.ts): when each generation's preview is up.
      performance.mark('platform:preview-ready', { detail: { generation } });
      log('preview.loaded', { generation });
    },
    onRefreshed: () => {
      performance.mark('platform:preview-ready', { detail: { generation, page: 'kept' } });
      log('preview.loaded', { generation, page: 'kept' });
    },
    onNotice: (message) => log('preview.notice', { message }),
    onUnresponsive: () => (firstPreview.open(), log('preview.unresponsive', { message: 'The preview stopped responding (a loop in client code?); it reloads with the next build.' })),
  };
}
