/**
 * Files known to build and type-check cleanly: a template as shipped (CI runs `platform check` and
 * `platform test` on each), or a project's files at its last build that passed the type check. The
 * first build of a session over such files shows the preview without waiting for the type check (about
 * a second cold), which runs right after for the diagnostics: a build with type errors still never runs.
 * A session reaches these through its `ProjectStore` (src/ui/session/project-store.ts).
 */
import { createStore, get, set, type UseStore } from 'idb-keyval';
import { canonicalJson, sha256Hex } from '../../core/hash';
import { TEMPLATES } from './templates';

let store: UseStore | undefined;
const db = () => (store ??= createStore('platform-playground-known-good', 'digests'));

/** Digests already taken, by files object (a session's files are not changed in place: an edit makes new ones). */
const digests = new WeakMap<Record<string, string>, string>();

/** The content digest of a project's files. */
export function filesDigest(files: Record<string, string>): string {
  let digest = digests.get(files);
  if (digest === undefined) {
    digest = sha256Hex(canonicalJson(files));
    digests.set(files, digest);
  }
  return digest;
}

let templateDigests: Set<string> | undefined;

/** Whether these are a bundled template's files as shipped. */
export function isTemplateFiles(files: Record<string, string>): boolean {
  templateDigests ??= new Set(TEMPLATES.map((t) => filesDigest(t.files)));
  return templateDigests.has(filesDigest(files));
}

export async function isKnownGood(projectId: string, files: Record<string, string>): Promise<boolean> {
  if (isTemplateFiles(files)) return true;
  const digest = filesDigest(files);
  try {
    return (await get<string>(projectId, db())) === digest;
  } catch {
    return false;
  }
}

/** Remembers the files of a build that type-checked cleanly. */
export async function rememberGood(projectId: string, files: Record<string, string>): Promise<void> {
  try {
    await set(projectId, filesDigest(files), db());
  } catch {
    // Only a shortcut is lost: the next session's first build waits for the type check.
  }
}
