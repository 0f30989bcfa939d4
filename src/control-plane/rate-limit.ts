/** A sliding-window rate limit per key (a client address), kept in memory: at most `limit` events in any `windowMs`. */
export class RateLimit {
  readonly limit: number;
  readonly windowMs: number;
  readonly #events = new Map<string, number[]>();

  constructor(limit: number, windowMs: number) {
    this.limit = limit;
    this.windowMs = windowMs;
  }

  /** Counts an event for `key` at `now` when the window has room: undefined when allowed, else when the next one is. */
  take(key: string, now: number): { retryAt: number } | undefined {
    // Keys whose events all left the window are forgotten, so the map stays as small as the traffic.
    for (const [other, times] of this.#events) if (times[times.length - 1]! <= now - this.windowMs) this.#events.delete(other);
    const times = (this.#events.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (times.length >= this.limit) {
      this.#events.set(key, times);
      return { retryAt: times[times.length - this.limit]! + this.windowMs };
    }
    times.push(now);
    this.#events.set(key, times);
    return undefined;
  }
}

/** The address a request came from: the socket's peer under `@hono/node-server`, `local` in process (`app.request`). */
export function clientAddress(env: unknown): string {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'local';
}
