/** A learner's progress through a project's lesson, kept per project in localStorage (as the layout is). */
import type { LessonProgress } from '../../core/lesson';

const key = (projectId: string) => `platform-lesson:${projectId}`;

/** What was kept (checked against the lesson by `fitProgress`), or undefined. */
export function loadProgress(projectId: string, storage: Pick<Storage, 'getItem'> = localStorage): unknown {
  try {
    return JSON.parse(storage.getItem(key(projectId)) ?? 'null');
  } catch {
    return undefined;
  }
}

export function saveProgress(projectId: string, progress: LessonProgress, storage: Pick<Storage, 'setItem'> = localStorage): void {
  try {
    storage.setItem(key(projectId), JSON.stringify(progress));
  } catch {
    // Storage refused (a third-party frame) or full: the progress holds for this page only.
  }
}

/** A deleted project's progress goes with it. */
export function forgetProgress(projectId: string, storage: Pick<Storage, 'removeItem'> = localStorage): void {
  try {
    storage.removeItem(key(projectId));
  } catch {
    // storage unavailable: nothing was kept
  }
}
