import { isIPv4, isIPv6 } from 'node:net';

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

/**
 * The source a client address belongs to, which sign-in limits count by: its network, not the
 * address, since whoever holds one address of a network usually holds the rest of it as cheaply.
 * An IPv4 address (also written IPv4-mapped, `::ffff:a.b.c.d`) counts by its /24, an IPv6 address by
 * its /64 (a zone index ignored); anything else (`local` in process) is its own source.
 */
export function clientSource(address: string): string {
  if (isIPv4(address)) return `${address.split('.').slice(0, 3).join('.')}.0/24`;
  const bare = address.split('%')[0]!;
  if (!isIPv6(bare)) return address;
  const groups = ipv6Groups(bare);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.0/24`;
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 read as two groups). */
function ipv6Groups(address: string): number[] {
  const read = (part: string) =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  const at = address.indexOf('::');
  if (at < 0) return read(address);
  const head = read(address.slice(0, at));
  const tail = read(address.slice(at + 2));
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}
