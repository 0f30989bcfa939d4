/**
 * Share links in the playground: the link of an open project (its files, persona, open file and,
 * when asked, the app's data exported by its runtime), opening a link as a new project, and the
 * bug report made from one. The link format and its checks are src/core/share's.
 */
import { MANIFEST_FILE } from '../../core/manifest';
import { bugReport, decodeShareLink, encodeShareLink, type ShareLink, type ShareLinkError } from '../../core/share';
import { parseStateExportText, type StateExportDocument } from '../../core/state';
import type { Diagnostic } from '../../core/diagnostics';
import type { TestFailure } from '../../core/testing/events';
import { newProjectId, PROJECT_FORMAT, saveProject, savePendingImport, type Project } from '../projects/store';
import type { ProjectSession } from '../playground/project-session';
import type { TestsState } from '../tests/test-session';
import { version } from '../../../package.json';

/** The playground's version, as the bug report states it. */
export const PLAYGROUND_VERSION: string = version;

/** The route of a link: `#/share/v1.…`. The core's bare form `#v1.…` opens too. */
export const SHARE_ROUTE = '#/share/';

/** The link's fragment (without `#/share/`) when the hash is a share route. */
export function shareFragment(hash: string): string | undefined {
  if (hash.startsWith(SHARE_ROUTE)) return hash.slice(SHARE_ROUTE.length);
  if (/^#[vV]/.test(hash)) return hash.slice(1);
  return undefined;
}

export function shareUrl(fragment: string, base: string = `${location.origin}${location.pathname}`): string {
  return `${base}${SHARE_ROUTE}${fragment}`;
}

export type BuiltLink = { ok: true; url: string; withData: boolean; dataNote?: string; leftOut?: string } | { ok: false; error: ShareLinkError };

/** How many stored objects the listing shows in what a link leaves out. */
const LEFT_OUT_LISTED = 3;

/**
 * What a link with data leaves out: the app's stored objects (a state export holds database records
 * only, docs/sharing.md), named so the person knows before sending it. Undefined when there are none.
 */
export async function storedObjectsLeftOut(session: Pick<ProjectSession, 'inspect'>): Promise<string | undefined> {
  const listed = await session.inspect({ kind: 'storage-list', limit: 100 });
  if (listed.kind !== 'storage-list' || listed.objects.length === 0) return undefined;
  const count = `${listed.objects.length}${listed.more ? '+' : ''}`;
  const names = listed.objects.slice(0, LEFT_OUT_LISTED).map((o) => `${o.key} (${o.size} B)`).join(', ');
  const rest = listed.objects.length > LEFT_OUT_LISTED || listed.more ? ', …' : '';
  return `Not in the link: ${count} stored object${count === '1' ? '' : 's'} (${names}${rest}). Links carry the database only: the recipient sees the records that name them, and downloading them answers 404.`;
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
  let leftOut: string | undefined;
  if (withData) {
    const exported = await exportedState(session);
    if (exported.ok) link.state = exported.document;
    else dataNote = `Shared without data: ${exported.code ? `${exported.code} ` : ''}${exported.message}`;
    if (exported.ok) leftOut = await storedObjectsLeftOut(session);
  }
  const encoded = await encodeShareLink(link);
  if (!encoded.ok) return encoded;
  return { ok: true, url: shareUrl(encoded.hash), withData: link.state !== undefined, ...(dataNote ? { dataNote } : {}), ...(leftOut ? { leftOut } : {}) };
}

/** A new project (never an existing one) from a decoded link. */
export function projectFromLink(link: ShareLink): Project {
  const now = Date.now();
  let title = link.name;
  if (!title) {
    try {
      title = (JSON.parse(link.files[MANIFEST_FILE] ?? '{}') as { name?: string }).name;
    } catch {
      // a broken manifest still opens: the problems panel says what is wrong with it
    }
  }
  return {
    format: PROJECT_FORMAT,
    id: newProjectId(),
    title: typeof title === 'string' && title ? title : 'Shared project',
    ...(link.template ? { template: link.template } : {}),
    files: { ...link.files },
    openTabs: link.openFile ? [link.openFile] : [],
    ...(link.openFile ? { activeFile: link.openFile } : {}),
    persona: link.persona,
    createdAt: now,
    updatedAt: now,
  };
}

export type OpenedLink = { ok: true; project: Project; state?: string } | { ok: false; error: ShareLinkError };

/** Decodes a link into a new project and the data to import; writes nothing. */
export async function readShareLink(fragment: string): Promise<OpenedLink> {
  const decoded = await decodeShareLink(fragment);
  if (!decoded.ok) return decoded;
  return { ok: true, project: projectFromLink(decoded.link), ...(decoded.link.state ? { state: JSON.stringify(decoded.link.state) } : {}) };
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
