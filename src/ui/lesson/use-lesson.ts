/** The lesson of an open project's session (a LessonSession made with it and disposed with it) and its pane, for the playground and the embed. */
import { useEffect, useMemo } from 'preact/hooks';
import type { CompilerClient } from '../compiler-client';
import { lazyComponent } from '../lazy';
import { TestSession } from '../tests/test-session';
import { LessonSession, type LessonHost } from './lesson-session';

export function useLesson(session: LessonHost, compiler: CompilerClient): LessonSession {
  // A step's check is a TestSession of its own, over the files the lesson gives it.
  const lesson = useMemo(() => new LessonSession(session, (host) => new TestSession(compiler, host)), [session]);
  useEffect(() => () => lesson.dispose(), [lesson]);
  return lesson;
}

/** The lesson pane, loaded when a project with a lesson first shows it (markdown-it comes with it). */
export const LessonPane = lazyComponent(() => import('./lesson-pane').then((m) => m.LessonPane), 'lesson');
