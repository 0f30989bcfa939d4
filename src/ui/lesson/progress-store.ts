/** A learner's progress through a project's lesson, kept per project in localStorage (as the layout is: ../project-entry.ts). */
import type { LessonProgress } from '../../core/lesson';
import { projectEntry } from '../project-entry';

/** What was kept (checked against the lesson by `fitProgress`), or undefined. */
const progress = projectEntry<unknown>('platform-lesson', (kept) => kept, () => undefined);
export const loadProgress = progress.load;
export const saveProgress: (projectId: string, value: LessonProgress, storage?: Pick<Storage, 'setItem'>) => void = progress.save;
/** A deleted project's progress goes with it. */
export const forgetProgress = progress.forget;
