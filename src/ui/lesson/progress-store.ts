/** A learner's progress through a project's lesson, kept per project in localStorage (as the layout is). */
import type { LessonProgress } from '../../core/lesson';

const key = (projectId: string) => `platform-lesson:${projectId}`;

// The page's storage is read inside each try: where the browser refuses a frame its storage, reading
// `localStorage` itself throws (and in Node there is none).

/** What was kept (checked against the lesson by `fitProgress`), or undefined. */
export function loadProgress(projectId: string, storage?: Pick<Storage, 'getItem'>): unknown {
  try {
    return JSON.parse((storage ?? localStorage).getItem(key(projectId)) ?? 'null');
  } catch {
    return undefined;
  }
}

export function saveProgress(projectId: string, progress: LessonProgress, storage?: Pick<Storage, 'setItem'>): void {
  try {
    (storage ?? localStorage).setItem(key(projectId), JSON.stringify(progress));
  } catch {
    // Storage refused (a third-party frame) or full: the progress holds for this page only.
  }
}

/** A deleted project's progress goes with it. */
export function forgetProgress(projectId: string, storage?: Pick<Storage, 'removeItem'>): void {
  try {
    (storage ?? localStorage).removeItem(key(projectId));
  } catch {
    // storage unavailable: nothing was kept
  }
}
