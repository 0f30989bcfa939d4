/**
 * An editable embed keeps the visitor's work (issue 33): the first visit stores the link's project as a
 * copy of its own, under an id made from the link and the embedding page, and every later load of that
 * page opens the copy, edits and data included. The copy is not one of the visitor's projects (the
 * project list leaves `embed-` ids out); Start over deletes it and opens the link's files again.
 *
 * Scope: the link (another lesson, or another version of it, is another copy) and the embedding page as
 * the browser reports it (`document.referrer`: its origin, or its whole address where the page's
 * referrer policy allows). Browsers that partition storage by top-level site keep one site's copies
 * apart from another's in any case.
 */
import { EMBED_ID_PREFIX, deleteProject, loadProject } from '../projects/store';
import { saveLinkedProject, type OpenedLink } from '../share/share';

const LINK_KEY = (id: string) => `platform-embed-link:${id}`;

/**
 * The id of the visitor's copy of the link `read` (its `fragment`) embedded in `embeddingPage`: stored
 * now on the first visit (or after Start over), else as it was left. Throws where the browser refuses
 * this frame its storage (a third-party frame whose storage is blocked): the embed is then a scratch copy.
 */
export async function keptEmbed(fragment: string, read: Extract<OpenedLink, { ok: true }>, embeddingPage: string): Promise<string> {
  const id = await keptEmbedId(fragment, embeddingPage);
  if (takeStartOver(id)) await deleteProject(id);
  if (!(await loadProject(id))) await saveLinkedProject({ ...read, project: { ...read.project, id } });
  localStorage.setItem(LINK_KEY(id), fragment);
  return id;
}

/** The copy's id for this link on this embedding page. */
async function keptEmbedId(fragment: string, embeddingPage: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${embeddingPage}\n${fragment}`)));
  return `${EMBED_ID_PREFIX}${Array.from(digest.subarray(0, 12), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** The link's fragment the copy came from, if remembered. */
export function embedLinkOf(id: string): string | undefined {
  try {
    return localStorage.getItem(LINK_KEY(id)) ?? undefined;
  } catch {
    return undefined;
  }
}

const START_OVER_KEY = 'platform-embed-start-over';

/** Start over: the next load of the link in this page deletes the copy first (after its session has closed and saved). */
export function startOverEmbed(id: string): void {
  sessionStorage.setItem(START_OVER_KEY, id);
}

/** Whether Start over asked for the copy `id` to be deleted (asked once: the request is taken). */
function takeStartOver(id: string): boolean {
  const asked = sessionStorage.getItem(START_OVER_KEY) === id;
  if (asked) sessionStorage.removeItem(START_OVER_KEY);
  return asked;
}
