/** What the playground does with its previews' events (preview-events.ts), over a recording log. */
import { describe, expect, it } from 'vitest';
import { LIVE_OFF_MESSAGE, previewEvents } from './preview-events';

function recorder() {
  const logged: Array<[string, Record<string, unknown> | undefined]> = [];
  let opened = 0;
  const sinks = { log: (kind: string, fields?: Record<string, unknown>) => void logged.push([kind, fields]), firstPreview: { open: () => void opened++ }, onConsole: () => undefined };
  return { logged, opened: () => opened, sinks };
}

describe('the previews’ events', () => {
  it('says live updates are off once, and again only after a connection was admitted', () => {
    const { logged, sinks } = recorder();
    const liveOff = { current: false };
    const first = previewEvents(sinks, 1, liveOff);
    first.onLiveOff!();
    // A new generation's events share the same flag: still said once.
    previewEvents(sinks, 2, liveOff).onLiveOff!();
    expect(logged.filter(([kind]) => kind === 'preview.live')).toEqual([['preview.live', { message: LIVE_OFF_MESSAGE }]]);
    first.onCall!({ operation: 'live connection', status: 200, durationMs: 1.234 } as never);
    first.onLiveOff!();
    expect(logged.filter(([kind]) => kind === 'preview.live')).toHaveLength(2);
    expect(logged.find(([kind]) => kind === 'runtime.call')?.[1]).toMatchObject({ operation: 'live connection', durationMs: 1.2 });
  });

  it('opens the way for the editor on the first load, error or hang, and marks each load for the bench', () => {
    const { logged, opened, sinks } = recorder();
    const events = previewEvents(sinks, 7, { current: false });
    performance.clearMarks('platform:preview-ready');
    events.onLoaded!();
    events.onRefreshed!();
    events.onError!('boom', '');
    events.onUnresponsive!();
    expect(opened()).toBe(3);
    expect(performance.getEntriesByName('platform:preview-ready').map((mark) => (mark as PerformanceMark).detail)).toEqual([{ generation: 7 }, { generation: 7, page: 'kept' }]);
    expect(logged.map(([kind]) => kind)).toEqual(['preview.loaded', 'preview.loaded', 'preview.error', 'preview.unresponsive']);
  });
});
