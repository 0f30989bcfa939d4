/** The toolbar's build status and the stale-build note (compile-status.ts), for each state a session can be in. */
import { describe, expect, it } from 'vitest';
import { compileStatusText, loadingText, savedWhen, staleNote } from './compile-status';
import type { NumberedGeneration } from '../session/generation';

const NOW = new Date('2026-11-30T12:00:00');
const EARLIER_TODAY = new Date('2026-11-30T09:30:00').getTime();
const generation = { number: 3 } as unknown as NumberedGeneration;
const base = { compile: 'ready' as const, checked: true, stale: false };

describe('the compile status', () => {
  it('says how far the compiler has loaded', () => {
    expect(loadingText({ loaded: 0, total: 0 })).toBe('Loading the compiler…');
    expect(loadingText({ loaded: 5_700_000, total: 14_200_000 })).toBe('Loading the compiler… 40% of 14.2 MB');
    expect(loadingText({ loaded: 3_000_000, total: 0 })).toBe('Loading the compiler… 3.0 MB');
    expect(loadingText({ loaded: 14_200_000, total: 14_200_000 })).toBe('Starting the compiler…');
    expect(compileStatusText({ ...base, compile: 'loading' }, { loaded: 0, total: 0 })).toBe('Loading the compiler…');
  });

  it('says ready, with the time, and that the types are still being checked until they are', () => {
    const progress = { loaded: 0, total: 0 };
    expect(compileStatusText({ ...base, compile: 'compiling' }, progress)).toBe('Compiling…');
    expect(compileStatusText({ ...base, timings: { total: 412.6 } as never }, progress)).toBe('Ready in 413 ms');
    expect(compileStatusText({ ...base, checked: false }, progress)).toBe('Ready, checking types…');
  });

  it('says why a build failed and what is shown instead', () => {
    const progress = { loaded: 0, total: 0 };
    expect(compileStatusText({ ...base, compile: 'failed' }, progress)).toBe('Build failed');
    expect(compileStatusText({ ...base, compile: 'failed', stale: true }, progress)).toBe('Build failed: showing the last good build');
    expect(compileStatusText({ ...base, compile: 'failed', stale: true, restoredFrom: EARLIER_TODAY }, progress, NOW)).toBe(`Build failed: showing the last good build (${savedWhen(EARLIER_TODAY, NOW)})`);
    expect(compileStatusText({ ...base, compile: 'failed', takenDown: true }, progress)).toBe('Build failed: the type check found errors, so its preview was taken down');
    expect(compileStatusText({ ...base, compile: 'failed', takenDown: true, stale: true }, progress)).toBe('Build failed: the type check found errors, so its preview was taken down; showing the last good build');
  });

  it('notes a preview of an older build, and nothing otherwise', () => {
    expect(staleNote({ ...base })).toBeUndefined();
    expect(staleNote({ ...base, generation })).toBeUndefined();
    expect(staleNote({ ...base, generation, stale: true })).toBe('Showing the last good build: the current files do not build (see Problems).');
    expect(staleNote({ ...base, generation, compile: 'compiling', restoredFrom: EARLIER_TODAY }, NOW)).toBe(`Showing the last good build, ${savedWhen(EARLIER_TODAY, NOW)}, while the current files are built.`);
    expect(staleNote({ ...base, generation, restoredFrom: EARLIER_TODAY }, NOW)).toBeUndefined();
  });

  it('names the time alone for a build saved today, the date too for an older one', () => {
    expect(savedWhen(EARLIER_TODAY, NOW)).toBe(`saved ${new Date(EARLIER_TODAY).toLocaleTimeString()}, before this session`);
    const lastWeek = new Date('2026-11-23T09:30:00').getTime();
    expect(savedWhen(lastWeek, NOW)).toBe(`saved ${new Date(lastWeek).toLocaleString()}, before this session`);
  });
});
