/**
 * Messages between the playground page (trusted) and a preview frame (src/ui/preview/bootstrap.ts,
 * then the app's client code): a `sandbox="allow-scripts allow-forms"` iframe per persona. Everything
 * is structured-clone-safe and tagged by `type`.
 *
 * Two channels:
 * - the frame's window (`PreviewStart` → bootstrap, by `postMessage` on the frame's window): a
 *   vendor script ahead of the app, then the app with the frame's port (once);
 * - the frame's port (`PageMessage` → frame, `FrameMessage` ← frame).
 *
 * The frame runs a stranger's code, and that code can capture the port (patching
 * `MessagePort.prototype.postMessage`): whatever arrives on it is the app's word. The page acts on a
 * message only once `readFrameMessage` has checked every field and made a copy of it.
 */
import type { PreviewAnswer } from './runtime';
import type { BodyMessage } from '../../src/core/host';

/** The most characters of text the page takes from the frame in one field (the bootstrap cuts to it). */
export const PREVIEW_TEXT_LIMIT = 4000;
/** The longest name (of a query or mutation, of a file to save) the page takes from the frame. */
export const PREVIEW_NAME_LIMIT = 1000;

/** The levels of `console` the bootstrap forwards. */
export const CONSOLE_LEVELS = ['debug', 'log', 'info', 'warn', 'error'] as const;
export type ConsoleLevel = (typeof CONSOLE_LEVELS)[number];

/** A file under the app's public/, as the frame serves it (from a blob: URL). */
export interface PreviewAsset {
  text: string;
  type: string;
}

/** Page → the frame's window (the bootstrap takes these only from its parent). */
export type PreviewStart =
  /** A vendor script (React) run before the app is known; the app's code comes later without it. */
  | { type: 'prelude'; code: string }
  /** The app (once; the frame's port is transferred with it). `afterPrelude`: `code` is the app's part after the prelude. */
  | {
      type: 'init';
      code: string;
      afterPrelude: boolean;
      css?: string;
      title: string;
      lang: string;
      /** Path served at (`/logo.svg`) → the file. */
      assets: Record<string, PreviewAsset>;
    };

/** An error as `call` answers it: the runtime's error and the status of its response. */
export interface PreviewCallError {
  status: number;
  code: string;
  message: string;
  errorId: string;
}

/** Page → frame, on the frame's port. */
export type PageMessage =
  /** The heartbeat: answered `pong` while the frame's thread runs. */
  | { type: 'ping'; at: number }
  /** A port straight to the runtime worker (transferred with this message), tagged there with the persona. */
  | { type: 'runtime-port' }
  /** The runtime worker the port reached is gone: calls not in `ran` go over `fetch` again. */
  | { type: 'runtime-detach'; ran: number[] }
  /** Did the page show a server replaced under it without loading again? Answered `server-replaced`. */
  | { type: 'server-replaced'; id: number }
  /** The answers to the frame's `call`. */
  | { type: 'result'; id: number; result: unknown }
  | { type: 'error'; id: number; error: PreviewCallError }
  /** The status and headers of the frame's `fetch`; its body follows as `body-chunk`s when `hasBody`. */
  | { type: 'response'; id: number; status: number; headers: Array<[string, string]>; hasBody: boolean }
  | BodyMessage<ArrayBuffer>
  /** A direct call's answer, given by the page (one that wrote, once durable; or one interrupted). */
  | PreviewAnswer;

/** Frame → page, on the frame's port: untrusted, read with `readFrameMessage`. */
export type FrameMessage =
  | { type: 'pong'; at: number }
  /** The app's code ran. */
  | { type: 'loaded' }
  /** The answer to the page's `server-replaced`: true when the page shows the new server. */
  | { type: 'server-replaced'; id: number; ok: boolean }
  /** Client code threw and nothing caught it. */
  | { type: 'client-error'; message: string; stack: string }
  | { type: 'console'; level: ConsoleLevel; message: string; stack: string }
  /** A query or mutation through the page, outside the client module; `input` as the app gave it. Answered `result` or `error`. */
  | { type: 'call'; id: number; kind: 'query' | 'mutation'; name: string; input?: unknown }
  /** A request to the app's routes; `path` is the URL's path and query (from `/`). Answered `response`. */
  | { type: 'fetch'; id: number; method: string; path: string; headers: Array<[string, string]>; body: ArrayBuffer | null }
  /** The frame stopped reading a response body. */
  | { type: 'cancel-body'; id: number }
  /** A person's click on a link into the app (so the frame says: the page checks): offer it as a file. */
  | { type: 'download'; path: string; name: string }
  | { type: 'sign-in' }
  | { type: 'sign-out' }
  /** A click on a link out of the app, not followed. */
  | { type: 'external-link'; href: string };

export type FrameMessageType = FrameMessage['type'];

const isId = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isText = (value: unknown, max: number): value is string => typeof value === 'string' && value.length <= max;
/** A path (and query) on the app's origin: it starts at `/` (the page puts the origin before it). */
const isPath = (value: unknown): value is string => typeof value === 'string' && value.startsWith('/');
/** An HTTP method: a token (RFC 9110), which `new Request` takes. */
const isMethod = (value: unknown): value is string => isText(value, 32) && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value);
const isPairs = (value: unknown): value is Array<[string, string]> =>
  Array.isArray(value) && value.every((pair) => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && typeof pair[1] === 'string');
const isLevel = (value: unknown): value is ConsoleLevel => (CONSOLE_LEVELS as readonly unknown[]).includes(value);

type Check = (value: unknown) => boolean;
/**
 * A message's fields (besides `type`), each with its check; an optional field says `optional: true`,
 * a required one cannot. The type holds the table to the union: a field without a check, or a check of no field, does not
 * compile. A message with any other own field is refused: the page takes exactly the union's shapes.
 */
type FieldsOf<M> = { [K in Exclude<keyof M, 'type'>]-?: {} extends Pick<M, K> ? { check: Check; optional: true } : { check: Check; optional?: never } };
const required = (check: Check) => ({ check });

const FIELDS: { [M in FrameMessage as M['type']]: FieldsOf<M> } = {
  pong: { at: required((v) => typeof v === 'number') },
  loaded: {},
  'server-replaced': { id: required(isId), ok: required((v) => typeof v === 'boolean') },
  'client-error': { message: required((v) => isText(v, PREVIEW_TEXT_LIMIT)), stack: required((v) => isText(v, PREVIEW_TEXT_LIMIT)) },
  console: { level: required(isLevel), message: required((v) => isText(v, PREVIEW_TEXT_LIMIT)), stack: required((v) => isText(v, PREVIEW_TEXT_LIMIT)) },
  // `input` is the app's own value, which the runtime encodes as wire JSON (or refuses): any clone.
  call: { id: required(isId), kind: required((v) => v === 'query' || v === 'mutation'), name: required((v) => isText(v, PREVIEW_NAME_LIMIT)), input: { check: () => true, optional: true } },
  fetch: {
    id: required(isId),
    method: required(isMethod),
    path: required(isPath),
    headers: required(isPairs),
    body: required((v) => v === null || v instanceof ArrayBuffer),
  },
  'cancel-body': { id: required(isId) },
  download: { path: required(isPath), name: required((v) => isText(v, PREVIEW_NAME_LIMIT)) },
  'sign-in': {},
  'sign-out': {},
  'external-link': { href: required((v) => typeof v === 'string') },
};

/**
 * A message from a preview frame as the union promises it, or undefined. Only the object's own data
 * properties count (nothing inherited, no getters); any field the message's `type` does not have, or
 * one missing or of the wrong type, refuses the whole message. The answer is a fresh object holding
 * just those fields, each read once: what the page then reads is what was checked.
 */
export function readFrameMessage(data: unknown): FrameMessage | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const prototype = Object.getPrototypeOf(data);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const own = new Map<string, unknown>();
  for (const key of Reflect.ownKeys(data)) {
    if (typeof key !== 'string') return undefined;
    const descriptor = Object.getOwnPropertyDescriptor(data, key);
    if (!descriptor || !('value' in descriptor)) return undefined;
    own.set(key, descriptor.value);
  }
  const type = own.get('type');
  if (typeof type !== 'string' || !Object.hasOwn(FIELDS, type)) return undefined;
  const fields: Record<string, { check: Check; optional?: boolean }> = FIELDS[type as FrameMessageType];
  const message: Record<string, unknown> = { type };
  for (const key of own.keys()) if (key !== 'type' && !Object.hasOwn(fields, key)) return undefined;
  for (const [key, { check, optional }] of Object.entries(fields)) {
    if (!own.has(key)) {
      if (optional) continue;
      return undefined;
    }
    const value = own.get(key);
    if (!check(value)) return undefined;
    message[key] = value;
  }
  return message as FrameMessage;
}
