import { describe, expect, it } from 'vitest';
import { AdaptiveQuietWindow } from './quiet-window';

describe('the adaptive quiet window', () => {
  it('builds an edit after a pause at once', () => {
    const quiet = new AdaptiveQuietWindow();
    expect(quiet.edited(1000)).toBe(0);
    expect(quiet.edited(5000)).toBe(0);
    expect(quiet.edited(5250)).toBe(0);
  });

  it('waits a little longer than the gaps of a burst, within its bounds', () => {
    const quiet = new AdaptiveQuietWindow(250, 60, 250);
    expect(quiet.edited(0)).toBe(0);
    // Typing every 100 ms: wait 150 ms after each key.
    expect(quiet.edited(100)).toBe(150);
    expect(quiet.edited(200)).toBe(150);
    // Fast typing (every 20 ms) is bounded below; the smoothed gap falls toward it.
    let at = 200;
    let wait = 0;
    for (let i = 0; i < 20; i++) wait = quiet.edited((at += 20));
    expect(wait).toBe(60);
    // Slow keys (every 240 ms) are bounded above.
    const slow = new AdaptiveQuietWindow(250, 60, 250);
    slow.edited(0);
    for (let i = 1; i < 10; i++) wait = slow.edited(i * 240);
    expect(wait).toBe(250);
  });

  it('starts over after a pause: the next lone edit builds at once', () => {
    const quiet = new AdaptiveQuietWindow();
    quiet.edited(0);
    expect(quiet.edited(50)).toBeGreaterThan(0);
    expect(quiet.edited(2000)).toBe(0);
  });
});
