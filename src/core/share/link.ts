/**
 * Share links: a whole project (files, optionally the app's data as a `platform.state-export.v0`
 * document, the persona and the open file) in a URL fragment, compressed and versioned.
 *
 * Format (version 1): `v1.` + base64url( header ‖ deflate-raw(UTF-8 JSON payload) ), where the
 * 8-byte header is the compressed length (uint32, big-endian) and the first 4 bytes of the SHA-256 of
 * the compressed bytes. The length tells a cut-off link (truncated) from a damaged one (corrupt);
 * the digest catches any changed character before anything is decompressed.
 *
 * `decodeShareLink` never throws and never trusts its input: sizes are checked before work, the
 * decompression stops at a byte cap, and every field of the payload is validated.
 */
import type { Result } from '../result.ts';
import { sha256 } from '@noble/hashes/sha2.js';
import { isPersona, type PersonaName } from '../runtime/index.ts';
import { parseStateExport, type StateExportDocument } from '../state/index.ts';
import { decodeBase64url, encodeBase64url } from '../bytes.ts';
import { deflateRaw, inflateRaw } from './deflate.ts';
import { isPlainRecord, MAX_LINK_OBJECT_BYTES, parseSharedObjects, type SharedObject } from './objects.ts';
import { pathSetProblem, projectPathProblem } from './paths.ts';
import { shareFragment } from './route.ts';

export { SHARE_HASH, SHARE_ROUTE, shareFragment } from './route.ts';

/** The version this playground writes and reads. */
export const SHARE_LINK_VERSION = 1;
const PREFIX = `v${SHARE_LINK_VERSION}.`;
const HEADER_BYTES = 8;

/** Longest fragment accepted or produced, in characters (Chromium's URL limit is 2 MiB). */
export const MAX_SHARE_LINK_CHARS = 1_000_000;
/** Largest decompressed payload (UTF-8 JSON bytes); decompression stops past it. */
export const MAX_SHARE_PAYLOAD_BYTES = 16 * 1024 * 1024;
/** Most files in a shared project. */
export const MAX_SHARE_FILES = 2000;
/** Largest file, in UTF-16 code units. */
export const MAX_SHARE_FILE_CHARS = 2 * 1024 * 1024;
/** Longest project name and template id. */
export const MAX_SHARE_NAME_CHARS = 100;

/** What a link carries. */
export interface ShareLink {
  /** Project-relative POSIX path → text. */
  files: Record<string, string>;
  /** The persona the preview shows. */
  persona: PersonaName;
  /** The file open in the editor; one of `files`. */
  openFile?: string;
  /** What the person called the project. */
  name?: string;
  /** The template the project was made from. */
  template?: string;
  /** The app's data. */
  state?: StateExportDocument;
  /** The app's stored objects (at most MAX_LINK_OBJECT_BYTES in all), beside `state`. */
  objects?: SharedObject[];
}

/** The stable codes of a link that cannot be opened (docs/sharing.md). Dispatch on these, never on messages. */
export type ShareLinkErrorCode =
  | 'share_link_corrupt'
  | 'share_link_truncated'
  | 'share_link_too_large'
  | 'share_link_future_version'
  | 'share_link_unknown_version';

export interface ShareLinkError {
  code: ShareLinkErrorCode;
  message: string;
}

export type ShareLinkDecodeResult = Result<{ link: ShareLink }, { error: ShareLinkError }>;
export type ShareLinkEncodeResult = Result<{ hash: string }, { error: ShareLinkError }>;

const KEYS = new Set(['files', 'persona', 'openFile', 'name', 'template', 'state', 'objects']);
const TEMPLATE = /^[a-z][a-z0-9-]{0,62}$/;

const fail = (code: ShareLinkErrorCode, message: string): { ok: false; error: ShareLinkError } => ({ ok: false, error: { code, message } });

const isRecord = isPlainRecord;

/** Why a link's content is not acceptable, or undefined. The same rules on both sides. */
function linkProblem(link: Record<string, unknown>): string | undefined {
  for (const key of Object.keys(link)) if (!KEYS.has(key)) return `unknown key ${JSON.stringify(key.slice(0, 40))}`;
  if (!isRecord(link.files)) return '"files" is not an object of path → text';
  const paths = Object.keys(link.files);
  if (paths.length === 0) return 'the project has no files';
  if (paths.length > MAX_SHARE_FILES) return `the project has ${paths.length} files; at most ${MAX_SHARE_FILES} are shared`;
  for (const path of paths) {
    const problem = projectPathProblem(path);
    if (problem) return `the file path ${JSON.stringify(path.slice(0, 80))} ${problem}`;
    const text = link.files[path];
    if (typeof text !== 'string') return `the file ${JSON.stringify(path)} is not text`;
    if (text.length > MAX_SHARE_FILE_CHARS) return `the file ${JSON.stringify(path)} is larger than ${MAX_SHARE_FILE_CHARS} characters`;
  }
  const clash = pathSetProblem(paths);
  if (clash) return clash;
  if (!isPersona(link.persona)) return '"persona" is not one of alice, bob, guest';
  if (link.openFile !== undefined && (typeof link.openFile !== 'string' || !Object.hasOwn(link.files, link.openFile))) return '"openFile" is not one of the files';
  if (link.name !== undefined && (typeof link.name !== 'string' || link.name.trim() === '' || link.name.length > MAX_SHARE_NAME_CHARS)) {
    return `"name" is not a text of 1 to ${MAX_SHARE_NAME_CHARS} characters`;
  }
  if (link.template !== undefined && (typeof link.template !== 'string' || !TEMPLATE.test(link.template))) return '"template" is not a template id';
  if (link.state !== undefined) {
    const parsed = parseStateExport(link.state);
    if (!parsed.ok) return `its data is not a usable state export (${parsed.diagnostic.code}: ${parsed.diagnostic.message})`;
  }
  return undefined;
}

/** The link's stored objects refused, with the link code their refusal maps to; undefined when usable. */
function objectsProblem(link: Record<string, unknown>): ShareLinkError | undefined {
  if (link.objects === undefined) return undefined;
  const parsed = parseSharedObjects(link.objects, MAX_LINK_OBJECT_BYTES);
  if (parsed.ok) return undefined;
  return { code: parsed.error.code === 'stored_objects_too_large' ? 'share_link_too_large' : 'share_link_corrupt', message: `${parsed.error.code}: ${parsed.error.message}` };
}

function digest(bytes: Uint8Array): Uint8Array {
  return sha256(bytes).subarray(0, 4);
}

/**
 * Encodes a project into a fragment (without `#`). Refuses what `decodeShareLink` would refuse: a
 * bad path or persona (`share_link_corrupt`), a project too large for a link (`share_link_too_large`).
 *
 * @example
 * const result = await encodeShareLink({ files, persona: 'bob', openFile: 'src/server/index.ts' });
 * if (result.ok) location.hash = result.hash;
 */
export async function encodeShareLink(link: ShareLink): Promise<ShareLinkEncodeResult> {
  const problem = isRecord(link) ? linkProblem(link as unknown as Record<string, unknown>) : 'the link is not an object';
  if (problem) return fail('share_link_corrupt', `This project cannot be shared: ${problem}.`);
  const objects = objectsProblem(link as unknown as Record<string, unknown>);
  if (objects) return fail(objects.code, `This project cannot be shared: its stored objects are refused (${objects.message}).`);
  const payload: Record<string, unknown> = { files: link.files, persona: link.persona };
  for (const key of ['openFile', 'name', 'template', 'state', 'objects'] as const) if (link[key] !== undefined) payload[key] = link[key];
  const json = new TextEncoder().encode(JSON.stringify(payload));
  if (json.length > MAX_SHARE_PAYLOAD_BYTES) return fail('share_link_too_large', `The project is ${json.length} bytes; a link holds at most ${MAX_SHARE_PAYLOAD_BYTES}. Download it as a zip instead.`);
  const compressed = await deflateRaw(json);
  const framed = new Uint8Array(HEADER_BYTES + compressed.length);
  new DataView(framed.buffer).setUint32(0, compressed.length);
  framed.set(digest(compressed), 4);
  framed.set(compressed, HEADER_BYTES);
  const hash = PREFIX + encodeBase64url(framed);
  if (hash.length > MAX_SHARE_LINK_CHARS) {
    return fail('share_link_too_large', `The link would be ${hash.length} characters; at most ${MAX_SHARE_LINK_CHARS} are allowed. Share it without data, or download it as a zip.`);
  }
  return { ok: true, hash };
}

/** The fragment of a full URL, `#fragment` or a bare fragment; white space (from line-wrapping mail) is dropped. */
function fragmentOf(input: string): string {
  const hash = input.indexOf('#');
  return (hash >= 0 ? input.slice(hash + 1) : input).replace(/[\s]+/g, '');
}

/** The files of the share link a location hash names; undefined when it names none or does not decode. */
export async function linkFilesOf(hash: string): Promise<Record<string, string> | undefined> {
  const fragment = shareFragment(hash);
  if (fragment === undefined) return undefined;
  const decoded = await decodeShareLink(fragment);
  return decoded.ok ? decoded.link.files : undefined;
}

/**
 * Decodes a link: a full URL, its `#fragment`, or the fragment alone. Never throws.
 *
 * @example
 * const result = await decodeShareLink(location.hash);
 * if (!result.ok) showError(result.error.message); // and change nothing
 */
export async function decodeShareLink(input: string): Promise<ShareLinkDecodeResult> {
  try {
    return await decode(input);
  } catch (error) {
    // Unreachable by design: every step returns its failure. The last line of the error boundary.
    return fail('share_link_corrupt', `This link cannot be read: ${error instanceof Error ? error.message : String(error)}.`);
  }
}

async function decode(input: string): Promise<ShareLinkDecodeResult> {
  if (typeof input !== 'string') return fail('share_link_corrupt', 'This is not a share link.');
  if (input.length > MAX_SHARE_LINK_CHARS * 2) return fail('share_link_too_large', `This link is longer than ${MAX_SHARE_LINK_CHARS} characters.`);
  const text = fragmentOf(input);
  if (text.length > MAX_SHARE_LINK_CHARS) return fail('share_link_too_large', `This link is longer than ${MAX_SHARE_LINK_CHARS} characters.`);
  if (text === '' || PREFIX.startsWith(text)) return fail('share_link_truncated', 'This link was cut off: it holds no project. Copy the whole link again.');

  const dot = text.indexOf('.');
  const version = dot > 0 ? text.slice(0, dot) : '';
  if (version !== `v${SHARE_LINK_VERSION}`) {
    const numbered = /^v([1-9][0-9]{0,8})$/.exec(version);
    if (numbered && Number(numbered[1]) > SHARE_LINK_VERSION) {
      return fail('share_link_future_version', `This link was made by a newer playground (link version ${numbered[1]}; this one reads version ${SHARE_LINK_VERSION}). Open it in an up-to-date playground.`);
    }
    if (/^[A-Za-z][A-Za-z0-9_-]{0,15}$/.test(version)) {
      return fail('share_link_unknown_version', `This link has a version this playground does not know (${JSON.stringify(version)}).`);
    }
    return fail('share_link_corrupt', 'This is not a share link: it has no version prefix such as "v1.".');
  }

  const framed = decodeBase64url(text.slice(dot + 1).replace(/=+$/, ''));
  if (framed === 'invalid') return fail('share_link_corrupt', 'This link is damaged: it holds characters a share link never has.');
  if (framed === 'truncated' || framed.length < HEADER_BYTES) return fail('share_link_truncated', 'This link was cut off. Copy the whole link again.');
  const declared = new DataView(framed.buffer, framed.byteOffset).getUint32(0);
  const compressed = framed.subarray(HEADER_BYTES);
  if (compressed.length < declared) return fail('share_link_truncated', `This link was cut off (${compressed.length} of ${declared} bytes). Copy the whole link again.`);
  if (compressed.length > declared) return fail('share_link_corrupt', 'This link is damaged: it is longer than it says.');
  const expected = framed.subarray(4, HEADER_BYTES);
  const actual = digest(compressed);
  if (actual.some((byte, i) => byte !== expected[i])) return fail('share_link_corrupt', 'This link is damaged: its checksum does not match (a character was changed).');

  const inflated = await inflateRaw(compressed, MAX_SHARE_PAYLOAD_BYTES);
  if (inflated === 'too_large') return fail('share_link_too_large', `This link expands to more than ${MAX_SHARE_PAYLOAD_BYTES} bytes.`);
  if (inflated === 'corrupt') return fail('share_link_corrupt', 'This link is damaged: its compressed data is invalid.');
  let json: string;
  try {
    json = new TextDecoder('utf-8', { fatal: true }).decode(inflated);
  } catch {
    return fail('share_link_corrupt', 'This link is damaged: its content is not UTF-8 text.');
  }
  let payload: unknown;
  try {
    payload = JSON.parse(json);
  } catch {
    return fail('share_link_corrupt', 'This link is damaged: its content is not JSON.');
  }
  if (!isRecord(payload)) return fail('share_link_corrupt', 'This link is damaged: its content is not a project.');
  const problem = linkProblem(payload);
  if (problem) return fail('share_link_corrupt', `This link's project is not valid: ${problem}.`);
  const objects = objectsProblem(payload);
  if (objects) return fail(objects.code, `This link's stored objects are refused (${objects.message}). Nothing was opened.`);
  const link: ShareLink = {
    files: Object.fromEntries(Object.entries(payload.files as Record<string, string>)),
    persona: payload.persona as PersonaName,
  };
  if (payload.openFile !== undefined) link.openFile = payload.openFile as string;
  if (payload.name !== undefined) link.name = payload.name as string;
  if (payload.template !== undefined) link.template = payload.template as string;
  if (payload.state !== undefined) link.state = payload.state as StateExportDocument;
  if (payload.objects !== undefined) link.objects = payload.objects as SharedObject[];
  return { ok: true, link };
}
