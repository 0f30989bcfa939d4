/**
 * How long the compile loop waits after an edit before it rebuilds. A fixed quiet window delays every
 * edit by the window; this one adapts to the edits: one that comes after a pause (a paste, a single
 * change, a file saved) is built at once, and edits that come in a burst (typing) wait for the burst to
 * stop: a little longer than the gaps seen in it, at least `minMs` and at most `maxMs`. A newer build
 * supersedes a running one, so an edit built at once that is followed by more costs nothing on screen.
 */
export class AdaptiveQuietWindow {
  #lastEdit: number | undefined;
  /** The gap between edits within bursts, smoothed. */
  #gap: number | undefined;

  /** `burstMs`: edits closer than this belong to one burst; `minMs`/`maxMs` bound the wait inside one. */
  constructor(
    readonly burstMs = 250,
    readonly minMs = 60,
    readonly maxMs = 250,
  ) {}

  /** Notes an edit at `now` (ms, any monotonic clock) and returns how long to wait before building. */
  edited(now: number): number {
    const last = this.#lastEdit;
    this.#lastEdit = now;
    const gap = last === undefined ? Infinity : now - last;
    if (gap >= this.burstMs) return 0;
    this.#gap = this.#gap === undefined ? gap : 0.7 * this.#gap + 0.3 * gap;
    return Math.round(Math.min(this.maxMs, Math.max(this.minMs, 1.5 * this.#gap)));
  }
}
