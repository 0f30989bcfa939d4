/**
 * The template catalogue: a JSON document of templates (id, title, archive URL, SHA-256, project root)
 * that the control plane serves with the archives. `platform new --template <catalogue id>` reads it,
 * downloads the archive, checks its SHA-256 and opens it with the zip safety of src/core/zip: every
 * failure has its code (DG3007 to DG3012).
 */
import type { Result } from '../result.ts';
import { networkFailure, type FetchLike, controlUrlProblem } from '../deploy/index.ts';
import { readBodyCapped } from '../bytes.ts';
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import { sha256Hex } from '../hash/index.ts';
import { MANIFEST_FILE } from '../manifest/index.ts';
import { MAX_ZIP_BYTES, openZip } from '../zip/index.ts';

export const CATALOGUE_PROTOCOL = 'platform.template-catalogue.v0';
/** Where a control plane serves its catalogue. */
export const CATALOGUE_PATH = '/v0/templates';
/** A catalogue id: lowercase words joined by hyphens. */
export const CATALOGUE_ID = /^[a-z][a-z0-9-]{1,62}$/;
const SHA256 = /^[0-9a-f]{64}$/;
/** The largest catalogue document read. */
const MAX_CATALOGUE_BYTES = 1024 * 1024;

export interface CatalogueEntry {
  id: string;
  title: string;
  /** An absolute HTTP(S) URL, or a path on the catalogue's origin. */
  archive: string;
  sha256: string;
  /** The single top-level folder of the archive that holds the project (`app.manifest.json` at its top). */
  root: string;
}

export interface Catalogue {
  protocol: typeof CATALOGUE_PROTOCOL;
  templates: CatalogueEntry[];
}

export type Fetched<T> = Result<{ value: T }, { diagnostic: Diagnostic }>;
const fail = <T>(d: Diagnostic): Fetched<T> => ({ ok: false, diagnostic: d });

/** Why a catalogue entry cannot be installed from, or undefined. */
function entryProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'an entry is not an object';
  const entry = value as Record<string, unknown>;
  if (typeof entry.id !== 'string' || !CATALOGUE_ID.test(entry.id)) return `the id ${JSON.stringify(entry.id)} is not a catalogue id`;
  if (typeof entry.title !== 'string' || entry.title.length === 0) return `${entry.id} has no title`;
  if (typeof entry.archive !== 'string' || entry.archive.length === 0) return `${entry.id} has no archive URL`;
  if (typeof entry.sha256 !== 'string' || !SHA256.test(entry.sha256)) return `${entry.id} has no SHA-256 of 64 lowercase hex digits`;
  if (typeof entry.root !== 'string' || !/^[A-Za-z0-9._-]+$/.test(entry.root) || entry.root === '.' || entry.root === '..') return `${entry.id} has no usable project root folder`;
  return undefined;
}

/** Fetches and checks the catalogue at a control plane's origin: DG3007 when it cannot be read, DG3008 when it is not one to install from. */
export async function readCatalogue(fetch: FetchLike, origin: string): Promise<Fetched<Catalogue>> {
  const url = `${origin}${CATALOGUE_PATH}`;
  const unreadable = (why: string) => fail<Catalogue>(diagnostic('DG3007', `The template catalogue at ${url} ${why}.`, { hint: 'Start the control plane (npm run control-plane), check --control-url, or use a bundled template.' }));
  let response: Response;
  try {
    response = await fetch(new Request(url, { headers: { accept: 'application/json' } }));
  } catch (error) {
    return unreadable(`could not be reached${networkFailure(error)}`);
  }
  if (!response.ok) return unreadable(`answered HTTP ${response.status}`);
  const bytes = await readBodyCapped(response, MAX_CATALOGUE_BYTES).catch(() => undefined);
  if (!bytes) return unreadable(`could not be read in full (at most ${MAX_CATALOGUE_BYTES} bytes)`);
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return unreadable('is not JSON');
  }
  const invalid = (why: string) => fail<Catalogue>(diagnostic('DG3008', `The template catalogue at ${url} cannot be installed from: ${why}.`, { hint: 'Use a bundled template, or a control plane of this version.' }));
  if (typeof document !== 'object' || document === null || (document as { protocol?: unknown }).protocol !== CATALOGUE_PROTOCOL) return invalid(`it is not a ${CATALOGUE_PROTOCOL} document`);
  const templates = (document as { templates?: unknown }).templates;
  if (!Array.isArray(templates)) return invalid('it has no list of templates');
  const ids = new Set<string>();
  for (const entry of templates) {
    const problem = entryProblem(entry);
    if (problem) return invalid(problem);
    const { id } = entry as CatalogueEntry;
    if (ids.has(id)) return invalid(`${id} is listed twice`);
    ids.add(id);
  }
  return { ok: true, value: { protocol: CATALOGUE_PROTOCOL, templates: templates as CatalogueEntry[] } };
}

/** Where an entry's archive is: absolute HTTP(S) (plain HTTP only on localhost), or a path on the catalogue's origin. */
function archiveUrl(entry: CatalogueEntry, origin: string): string | undefined {
  let url: URL;
  try {
    url = new URL(entry.archive, origin);
  } catch {
    return undefined;
  }
  if (url.username || url.password || controlUrlProblem(url.origin)) return undefined;
  return url.href;
}

/**
 * Downloads an entry's archive, checks its SHA-256 and opens it safely: the project's files, or the
 * diagnostic (DG3008 an unusable URL, DG3009 the download, DG3010 the hash, DG3011 unsafe content,
 * DG3012 a project root other than the entry's).
 */
export async function installFiles(fetch: FetchLike, origin: string, entry: CatalogueEntry): Promise<Fetched<Record<string, string | Uint8Array>>> {
  type Files = Record<string, string | Uint8Array>;
  const url = archiveUrl(entry, origin);
  if (!url) return fail<Files>(diagnostic('DG3008', `The archive URL of ${entry.id} (${JSON.stringify(entry.archive)}) is not usable: it must be HTTP(S), plain HTTP only on localhost.`, { hint: 'Use another template or a bundled one.' }));
  const failed = (why: string) => fail<Files>(diagnostic('DG3009', `The archive of ${entry.id} could not be downloaded from ${url}: ${why}.`, { hint: 'Retry, or use a bundled template.' }));
  let response: Response;
  try {
    response = await fetch(new Request(url));
  } catch (error) {
    return failed(error instanceof Error && error.message ? error.message : 'no answer');
  }
  if (!response.ok) return failed(`HTTP ${response.status}`);
  const bytes = await readBodyCapped(response, MAX_ZIP_BYTES).catch(() => undefined);
  if (!bytes) return failed(`it is larger than ${MAX_ZIP_BYTES} bytes or broke off`);
  const actual = sha256Hex(bytes);
  if (actual !== entry.sha256) {
    return fail<Files>(diagnostic('DG3010', `The archive of ${entry.id} does not match the catalogue: its SHA-256 is ${actual}, the catalogue says ${entry.sha256}. Nothing was installed.`, { hint: 'Retry; if it still differs, do not use this template.' }));
  }
  const opened = openZip(bytes);
  if (!opened.ok) {
    return fail<Files>(diagnostic('DG3011', `The archive of ${entry.id} was not installed: ${opened.error.message}`, { hint: 'Do not use this template; nothing from it was written.', detail: { code: opened.error.code, ...(opened.error.entry ? { entry: opened.error.entry } : {}) } }));
  }
  const { root, files } = opened.zip;
  if (root !== entry.root || typeof files[MANIFEST_FILE] !== 'string') {
    const found = root === undefined ? 'no single top-level folder' : `the folder ${JSON.stringify(root)}`;
    const why = root !== entry.root ? `it holds ${found}, the catalogue says ${JSON.stringify(entry.root)}` : `${entry.root}/ has no ${MANIFEST_FILE}`;
    return fail<Files>(diagnostic('DG3012', `The archive of ${entry.id} does not match its catalogue entry: ${why}. Nothing was installed.`, { hint: 'Use another template or a bundled one.' }));
  }
  return { ok: true, value: files };
}
