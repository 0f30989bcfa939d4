/** A past moment as people say it ("3 minutes ago", "yesterday"), for a `<time>` whose exact time is in its title. */

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];

/** `at` (ISO 8601) relative to `now` (ms): the largest whole unit it spans; under ten seconds, "now". */
export function relativeTime(at: string, now: number, locale?: string): string {
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  const ago = now - Date.parse(at);
  if (Math.abs(ago) < 10_000) return format.format(0, 'second');
  for (const [unit, size] of UNITS) {
    if (Math.abs(ago) >= size) return format.format(-Math.trunc(ago / size), unit);
  }
  return format.format(0, 'second');
}

/** The exact time, for a `<time>`'s title: the person's own date and time format. */
export const exactTime = (at: string, locale?: string): string => new Date(at).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'medium' });
