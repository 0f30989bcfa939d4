/**
 * Storage keys and `list` prefixes (runtime.md, "Storage API", key rules).
 *
 * A key is a slash-separated path of segments made of ASCII letters, digits, `! . _ ~ ( ) ' * -` and
 * the space; no leading or trailing slash, no empty segment, no `.` or `..` segment, at most 512 bytes
 * as UTF-8. A prefix follows the same rules except that it may end in a slash or mid-segment.
 */

/** The refusal message of every key or prefix rule, before the quoted offending value. */
export const KEY_REFUSAL = 'A storage key must be slash-separated printable segments without dot segments: ';

/** The longest key, in UTF-8 bytes. */
export const MAX_KEY_BYTES = 512;

/** How many characters of a refused key the message quotes before it adds `…`. */
const QUOTED_CHARACTERS = 64;

/** One complete segment: allowed characters only, at least one. */
const SEGMENT = /^[A-Za-z0-9!._~()'* -]+$/;
/** The unfinished last piece of a prefix: allowed characters only, possibly none. */
const PARTIAL_SEGMENT = /^[A-Za-z0-9!._~()'* -]*$/;

const encoder = new TextEncoder();

function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    // Objects without a usable toString (Object.create(null), a throwing toString).
    return Object.prototype.toString.call(value);
  }
}

/** `"<value>"`, cut to its first 64 characters (code points) with `…` inside the quotes when longer. */
export function quoteForMessage(value: unknown): string {
  const text = describe(value);
  const characters = Array.from(text);
  if (characters.length <= QUOTED_CHARACTERS) return JSON.stringify(text);
  return JSON.stringify(characters.slice(0, QUOTED_CHARACTERS).join('') + '…');
}

/** The error a refused key or prefix fails the handler with. */
export function keyRefusal(value: unknown): Error {
  return new Error(KEY_REFUSAL + quoteForMessage(value));
}

function isCompleteSegment(segment: string): boolean {
  return SEGMENT.test(segment) && segment !== '.' && segment !== '..';
}

function withinLength(text: string): boolean {
  // Cheap bound first: a string of more than 512 UTF-16 units is always more than 512 UTF-8 bytes.
  return text.length <= MAX_KEY_BYTES && encoder.encode(text).length <= MAX_KEY_BYTES;
}

/** Whether `key` is a legal storage key. */
export function isValidKey(key: unknown): key is string {
  if (typeof key !== 'string' || key.length === 0 || !withinLength(key)) return false;
  return key.split('/').every(isCompleteSegment);
}

/**
 * Whether `prefix` is a legal `list` prefix: `""` (everything), or a key, or a key followed by a
 * slash, or a key followed by a slash and the start of a further segment. The unfinished last piece
 * may be `.` or `..` since a legal segment can start with them (`.config`, `..b`); a `.` or `..`
 * followed by a slash is a complete dot segment and refused.
 */
export function isValidPrefix(prefix: unknown): prefix is string {
  if (typeof prefix !== 'string') return false;
  if (prefix === '') return true;
  if (!withinLength(prefix)) return false;
  const pieces = prefix.split('/');
  const last = pieces.pop() ?? '';
  if (!pieces.every(isCompleteSegment)) return false;
  // `last` is '' exactly when the prefix ends in a slash (pieces is then non-empty, since prefix !== '').
  return PARTIAL_SEGMENT.test(last);
}

/** Returns the key, or throws the key refusal. Non-strings are refused the same way. */
export function validateKey(key: unknown): string {
  if (!isValidKey(key)) throw keyRefusal(key);
  return key;
}

/** Returns the prefix, or throws the key refusal. Non-strings are refused the same way. */
export function validatePrefix(prefix: unknown): string {
  if (!isValidPrefix(prefix)) throw keyRefusal(prefix);
  return prefix;
}
