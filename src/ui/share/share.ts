/**
 * Share links in the playground: the link of an open project (its files, persona, open file and,
 * when asked, the app's data exported by its runtime), opening a link as a new project, and the
 * bug report made from one. The link format and its checks are src/core/share's.
 */
import type { Result } from '../../core/result';
import { manifestName } from '../../core/manifest';
import {
  bugReport,
  chooseObjects,
  decodeShareLink,
  encodeShareLink,
  MAX_LINK_OBJECT_BYTES,
  projectDataText,
  SHARE_ROUTE,
  toSharedObject,
  type LeftOutObject,
  type SharedObject,
  type ShareLink,
  type ShareLinkError,
} from '../../core/share';
import { parseStateExportText, type StateExportDocument } from '../../core/state';
import type { Diagnostic } from '../../core/diagnostics';
import type { TestFailure } from '../../core/testing';
import { newProjectId, PROJECT_FORMAT, saveProject, savePendingImport, type Project } from '../projects/store';
import type { ProjectSession } from '../playground/project-session';
import type { TestsState } from '../tests/test-session';
import { version } from '../../../package.json';

/** The playground's version, as the bug report states it. */
export const PLAYGROUND_VERSION: string = version;

export function shareUrl(fragment: string, base: string = `${location.origin}${location.pathname}`): string {
  return `${base}${SHARE_ROUTE}${fragment}`;
}

export type BuiltLink =
  | { ok: true; url: string; withData: boolean; dataNote?: string; includes?: string; leftOut?: string }
  | { ok: false; error: ShareLinkError };

/** How many stored objects a note names before "…". */
const NAMED = 3;
/** Most stored objects looked at for a link or a zip (the rest are counted as left out). */
const MAX_LISTED_OBJECTS = 10_000;

type StoredInfo = { key: string; size: number };

/** Every stored object's key and size, in key order, page by page (at most MAX_LISTED_OBJECTS). */
export async function listStoredObjects(session: Pick<ProjectSession, 'inspect'>): Promise<{ objects: StoredInfo[]; more: boolean }> {
  const objects: StoredInfo[] = [];
  for (;;) {
    const after = objects.at(-1)?.key;
    const page = await session.inspect({ kind: 'storage-list', limit: 1000, ...(after !== undefined ? { after } : {}) });
    if (page.kind !== 'storage-list') return { objects, more: false };
    objects.push(...page.objects.map((o) => ({ key: o.key, size: o.size })));
    if (!page.more) return { objects, more: false };
    if (objects.length >= MAX_LISTED_OBJECTS) return { objects, more: true };
  }
}

/** The objects that fit in `budget` bytes with their bytes (read in the runtime), and those left out. */
export async function sharedObjects(session: Pick<ProjectSession, 'inspect'>, budget: number): Promise<{ objects: SharedObject[]; bytes: number; leftOut: LeftOutObject[]; more: boolean }> {
  const listed = await listStoredObjects(session);
  const chosen = chooseObjects(listed.objects, budget);
  const objects: SharedObject[] = [];
  const leftOut = [...chosen.leftOut];
  let bytes = 0;
  for (const info of chosen.included) {
    const got = await session.inspect({ kind: 'storage-get', key: info.key });
    if (got.kind === 'storage-get' && got.object && got.object.bytes.length <= budget - bytes) {
      objects.push(toSharedObject({ key: got.object.key, contentType: got.object.contentType, uploadedAt: got.object.uploadedAt, bytes: got.object.bytes }));
      bytes += got.object.bytes.length;
    } else if (got.kind !== 'storage-get' || got.object) leftOut.push(info);
  }
  return { objects, bytes, leftOut, more: listed.more };
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** "key (size B), …" for the first few objects. */
function named(objects: readonly StoredInfo[], more = false): string {
  const rest = objects.length > NAMED || more ? ', …' : '';
  return objects.slice(0, NAMED).map((o) => `${o.key} (${o.size.toLocaleString('en')} B)`).join(', ') + rest;
}

/** What a link or zip leaves out for a size limit, named; undefined when nothing is. */
export function leftOutNote(leftOut: readonly LeftOutObject[], more: boolean, limit: number, where: string): string | undefined {
  if (leftOut.length === 0 && !more) return undefined;
  const count = `${leftOut.length}${more ? '+' : ''}`;
  return `Not in the ${where}: ${count} stored object${count === '1' ? '' : 's'} over its ${(limit / 1024).toLocaleString('en')} KiB limit for objects (${named(leftOut, more)}). The recipient sees the records that name them, and downloading them answers 404.`;
}

/** What the link's data holds: records per the state export and the objects carried. */
function includesNote(state: StateExportDocument, objects: readonly SharedObject[], bytes: number): string {
  const records = Object.values(state.tables).reduce((n, rows) => n + rows.length, 0);
  const carried = objects.length === 0 ? 'no stored objects' : `${plural(objects.length, 'stored object')} (${bytes.toLocaleString('en')} B: ${named(objects.map((o) => ({ key: o.key, size: Math.floor((o.data.length * 3) / 4) })))})`;
  return `In the link: ${plural(records, 'record')} and ${carried}.`;
}

/** The app's data as a state export, read in its runtime and checked here before use. */
export async function exportedState(session: ProjectSession): Promise<{ ok: true; document: StateExportDocument; text: string } | { ok: false; message: string; code?: string; detailCode?: string }> {
  const result = await session.inspect({ kind: 'export-state' });
  if (result.kind === 'refused') {
    const detailCode = result.diagnostic?.detail?.code;
    return { ok: false, message: result.message, ...(result.diagnostic ? { code: result.diagnostic.code } : {}), ...(typeof detailCode === 'string' ? { detailCode } : {}) };
  }
  // The sandbox made it: it is parsed and checked like any document from outside.
  const parsed = parseStateExportText(result.text);
  if (!parsed.ok) return { ok: false, message: `The runtime's export is unusable: ${parsed.diagnostic.message}`, code: parsed.diagnostic.code };
  return { ok: true, document: JSON.parse(result.text) as StateExportDocument, text: result.text };
}

/** The share URL of the session's project as it is now, with its data when `withData`. */
export async function buildShareLink(session: ProjectSession, withData: boolean): Promise<BuiltLink> {
  const { project } = session.state;
  const link: ShareLink = { files: project.files, persona: project.persona };
  if (project.activeFile && project.files[project.activeFile] !== undefined) link.openFile = project.activeFile;
  if (project.title) link.name = project.title.slice(0, 100);
  if (project.template && /^[a-z0-9-]{1,100}$/.test(project.template)) link.template = project.template;
  let dataNote: string | undefined;
  let includes: string | undefined;
  let leftOut: string | undefined;
  if (withData) {
    const exported = await exportedState(session);
    if (exported.ok) {
      link.state = exported.document;
      const carried = await sharedObjects(session, MAX_LINK_OBJECT_BYTES);
      if (carried.objects.length) link.objects = carried.objects;
      includes = includesNote(exported.document, carried.objects, carried.bytes);
      leftOut = leftOutNote(carried.leftOut, carried.more, MAX_LINK_OBJECT_BYTES, 'link');
    } else dataNote = `Shared without data: ${exported.code ? `${exported.code} ` : ''}${exported.message}`;
  }
  const encoded = await encodeShareLink(link);
  if (!encoded.ok) return encoded;
  return { ok: true, url: shareUrl(encoded.hash), withData: link.state !== undefined, ...(dataNote ? { dataNote } : {}), ...(includes ? { includes } : {}), ...(leftOut ? { leftOut } : {}) };
}

/** A new project (never an existing one) from a decoded link. */
export function projectFromLink(link: ShareLink): Project {
  const now = Date.now();
  // A broken manifest still opens: the problems panel says what is wrong with it.
  const title = link.name || manifestName(link.files);
  return {
    format: PROJECT_FORMAT,
    id: newProjectId(),
    title: title || 'Shared project',
    ...(link.template ? { template: link.template } : {}),
    files: { ...link.files },
    openTabs: link.openFile ? [link.openFile] : [],
    ...(link.openFile ? { activeFile: link.openFile } : {}),
    persona: link.persona,
    createdAt: now,
    updatedAt: now,
  };
}

export type OpenedLink = Result<{ project: Project; state?: string }, { error: ShareLinkError }>;

/** Decodes a link into a new project and the data to import; writes nothing. */
export async function readShareLink(fragment: string): Promise<OpenedLink> {
  const decoded = await decodeShareLink(fragment);
  if (!decoded.ok) return decoded;
  const { state, objects } = decoded.link;
  // Objects travel beside the state export, in one project-data document the runtime imports.
  const data = objects?.length ? projectDataText(state, objects) : state ? JSON.stringify(state) : undefined;
  return { ok: true, project: projectFromLink(decoded.link), ...(data !== undefined ? { state: data } : {}) };
}

/** Saves a project read from a link, with its data to import when it first runs. */
export async function saveLinkedProject(opened: Extract<OpenedLink, { ok: true }>): Promise<void> {
  if (opened.state !== undefined) await savePendingImport(opened.project.id, opened.state);
  await saveProject(opened.project);
}

/** The failing tests of the last run, as the bug report lists them. */
export function failuresOf(tests: TestsState): TestFailure[] {
  return tests.results.flatMap((outcome) => {
    const f = outcome.failure;
    if (!f) return [];
    const { protocol: _p, kind: _k, name, durationMs: _d, failure, ...rest } = f;
    return [{ ...rest, test: name, file: rest.file ?? outcome.file, ...(failure ? { kind: failure } : {}) } as TestFailure];
  });
}

/** "Copy bug report": the link, what failed (tests first, else the problems), the persona, the version. */
export function bugReportFor(session: ProjectSession, tests: TestsState, url: string, note?: string): string {
  const failures = failuresOf(tests);
  const diagnostics: Diagnostic[] = [...tests.diagnostics, ...session.state.diagnostics];
  return bugReport({
    link: url,
    persona: session.state.project.persona,
    version: PLAYGROUND_VERSION,
    project: session.state.project.title,
    ...(failures.length ? { failures } : {}),
    ...(diagnostics.length ? { diagnostics } : {}),
    ...(note ? { note } : {}),
  });
}
