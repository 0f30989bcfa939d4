import { expect, it } from 'vitest';
import { exactTime, relativeTime } from './relative-time';

const now = Date.parse('2026-11-29T12:00:00Z');
const before = (ms: number) => new Date(now - ms).toISOString();

it('says a past moment in the largest whole unit it spans', () => {
  expect(relativeTime(before(3_000), now, 'en')).toBe('now');
  expect(relativeTime(before(42_000), now, 'en')).toBe('42 seconds ago');
  expect(relativeTime(before(60_000), now, 'en')).toBe('1 minute ago');
  expect(relativeTime(before(5 * 60_000 + 59_000), now, 'en')).toBe('5 minutes ago');
  expect(relativeTime(before(3 * 3_600_000), now, 'en')).toBe('3 hours ago');
  expect(relativeTime(before(26 * 3_600_000), now, 'en')).toBe('yesterday');
  expect(relativeTime(before(9 * 86_400_000), now, 'en')).toBe('last week');
  expect(relativeTime(before(400 * 86_400_000), now, 'en')).toBe('last year');
  // A clock a little behind the control plane's: still "now", never "in 2 seconds".
  expect(relativeTime(new Date(now + 2_000).toISOString(), now, 'en')).toBe('now');
});

it('gives the exact date and time for the title', () => {
  expect(exactTime('2026-11-29T12:34:56Z', 'en-GB')).toMatch(/29 Nov 2026.*\d{2}:\d{2}:56/);
});
