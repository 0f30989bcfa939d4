/** The lesson of an open project's session (a LessonSession made with it and disposed with it) and its pane, for the playground and the embed. */
import { useEffect, useMemo } from 'preact/hooks';
import type { CompilerClient } from '../compiler-client';
import { lazyComponent } from '../lazy';
import { LessonSession, type LessonHost } from './lesson-session';

export function useLesson(session: LessonHost, compiler: CompilerClient): LessonSession {
  const lesson = useMemo(() => new LessonSession(session, compiler), [session]);
  useEffect(() => () => lesson.dispose(), [lesson]);
  return lesson;
}

/** The lesson pane, loaded when a project with a lesson first shows it (markdown-it comes with it). */
export const LessonPane = lazyComponent(() => import('./lesson-pane').then((m) => m.LessonPane), 'lesson');
