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

/**
 * The id alphabet: lowercase base32 in ASCII order (digits before letters), so that comparing two ids
 * as strings (SQLite's binary collation, JavaScript's `<`) compares the numbers they encode.
 */
const BASE32 = '234567abcdefghijklmnopqrstuvwxyz';
const ID_LENGTH = 26;
const ID_BITS = 130n;
/** An ordered id is 50 bits of milliseconds (10 characters) then 80 bits (16 characters). */
const TAIL_BITS = 80n;
/** A fresh tail leaves its top two bits clear, so a millisecond has room for 2^79 ids after it. */
const FRESH_TAIL_BITS = 78;
/** Ids minted in one millisecond are at least 1 and at most 2^32 apart: the next is not the last plus one. */
const STEP_BITS = 32;

function randomBits(clock: RuntimeClock, bits: number): bigint {
  let value = 0n;
  for (const byte of clock.randomBytes(Math.ceil(bits / 8))) value = (value << 8n) | BigInt(byte);
  return value & ((1n << BigInt(bits)) - 1n);
}

function encodeId(value: bigint): string {
  let out = '';
  for (let i = 0; i < ID_LENGTH; i++) {
    out = BASE32[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

function decodeId(id: string): bigint | undefined {
  if (id.length !== ID_LENGTH) return undefined;
  let value = 0n;
  for (const char of id) {
    const digit = BASE32.indexOf(char);
    if (digit < 0) return undefined;
    value = (value << 5n) | BigInt(digit);
  }
  return value;
}

/** 26 lowercase base32 characters from 130 random bits (the platform's id shape, as in app_<id>). */
export function randomId(clock: RuntimeClock): string {
  return encodeId(randomBits(clock, Number(ID_BITS)));
}

/**
 * A row id that keeps insertion order: 26 base32 characters whose first ten encode `time` (the row's
 * createdAt, in milliseconds) and whose last sixteen are random. `after` is the greatest id already
 * stored with the same createdAt, if any: the new id sorts after it, by a random step of up to 2^32,
 * so rows inserted in one millisecond come back in the order they were inserted, and an id does not
 * tell the next one. Ids are unique within a table (the primary key), not a secret.
 *
 * An `after` that is no id of this shape (data imported from elsewhere) is passed over when a fresh id
 * already sorts after it; an `after` too close to the top of the id space to step past (only possible
 * for ids minted randomly, before ids were ordered) gives a fresh id, and order within that
 * millisecond is then not kept.
 */
export function orderedId(clock: RuntimeClock, time: number, after?: string | null): string {
  const prefix = BigInt(Math.max(0, Math.floor(time))) & ((1n << (ID_BITS - TAIL_BITS)) - 1n);
  const fresh = (prefix << TAIL_BITS) | randomBits(clock, FRESH_TAIL_BITS);
  const last = after ? decodeId(after) : undefined;
  if (last === undefined || fresh > last) return encodeId(fresh);
  const next = last + 1n + randomBits(clock, STEP_BITS);
  return next < 1n << ID_BITS ? encodeId(next) : encodeId(fresh);
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
