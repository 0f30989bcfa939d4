/** Time and randomness, injected so tests can be deterministic and hosts can choose their source. */

export interface RuntimeClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Cryptographically random bytes. */
  randomBytes(length: number): Uint8Array;
}

/** The real clock: Date.now and Web Crypto (present in Node 20, browsers and workers). */
export const systemClock: RuntimeClock = {
  now: () => Date.now(),
  randomBytes: (length) => crypto.getRandomValues(new Uint8Array(length)),
};

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** 26 lowercase base32 characters from 130 random bits (the platform's id shape, as in app_<id>). */
export function randomId(clock: RuntimeClock): string {
  const bytes = clock.randomBytes(17);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 26) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/** A clock for tests: time advances only when told, randomness comes from a seeded generator. */
export function testClock(start = Date.UTC(2026, 0, 1), seed = 1): RuntimeClock & { advance(ms: number): void } {
  let time = start;
  let state = seed >>> 0 || 1;
  return {
    now: () => time,
    advance(ms: number) {
      time += ms;
    },
    randomBytes(length) {
      const out = new Uint8Array(length);
      for (let i = 0; i < length; i++) {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        out[i] = state & 255;
      }
      return out;
    },
  };
}
