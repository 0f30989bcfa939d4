/**
 * Each file's cursor (selection) and scroll as last shown in the editor, kept per project in
 * localStorage (`platform-editor:<id>`) and restored when the file is shown after a reload. What is
 * stored is checked entry by entry: a malformed one is dropped, never breaking the editor; positions
 * are clamped to the document when restored, as the file may have changed since.
 */
import { projectEntry } from '../project-entry';

export interface FileView {
  /** The main selection: where it started and where the cursor is (offsets in the document). */
  anchor: number;
  head: number;
  /** The document offset of the first line in view, and how far that line's top is above the view's (px). */
  top: number;
  topOffset: number;
  /** The horizontal scroll (px). */
  left: number;
}

/** Project-relative path → its view. */
export type FileViews = Record<string, FileView>;

/** At most this many files are kept (the most recently shown): the entry stays small. */
export const MAX_FILE_VIEWS = 200;

const natural = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 1e9;
const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= 1e7;

/** The views in whatever was stored (parsed JSON, or anything else): the well-formed entries only. */
export function parseFileViews(stored: unknown): FileViews {
  const views: FileViews = {};
  if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return views;
  for (const [path, raw] of Object.entries(stored as Record<string, unknown>).slice(-MAX_FILE_VIEWS)) {
    if (!raw || typeof raw !== 'object') continue;
    const v = raw as Record<string, unknown>;
    if (natural(v.anchor) && natural(v.head) && natural(v.top) && finite(v.topOffset) && finite(v.left) && v.left >= 0)
      views[path] = { anchor: v.anchor, head: v.head, top: v.top, topOffset: v.topOffset, left: v.left };
  }
  return views;
}

/** `views` with `path`'s view set (moved to the end, the most recent) and the oldest dropped past the limit. */
export function withFileView(views: FileViews, path: string, view: FileView): FileViews {
  const { [path]: _old, ...rest } = views;
  const entries = Object.entries({ ...rest, [path]: view });
  return Object.fromEntries(entries.slice(-MAX_FILE_VIEWS));
}

/** Each project's file views (`platform-editor:<id>`); views that cannot be read are none. */
const fileViews = projectEntry('platform-editor', parseFileViews, (): FileViews => ({}));
export const loadFileViews = fileViews.load;
export const saveFileViews = fileViews.save;
/** A deleted project's views go with it. */
export const forgetFileViews = fileViews.forget;
