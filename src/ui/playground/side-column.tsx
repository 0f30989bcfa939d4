/** The playground's first column: the project's file tree, or, in a project with a lesson, the lesson and the tree behind tabs. */
import type { LessonSession } from '../lesson/lesson-session';
import { LessonPane } from '../lesson/use-lesson';
import { rovingTab, tabListKeys } from '../tab-list';
import { FileTree } from '../workspace/file-tree';
import type { Layout } from './layout';
import type { ProjectSession } from './project-session';

export interface SideColumnProps {
  session: ProjectSession;
  lesson: LessonSession;
  /** What the column shows in a project with a lesson, and its change. */
  side: Layout['side'];
  onSide(side: Layout['side']): void;
  /** The project's paths, sorted. */
  files: string[];
  /** A file was opened from the column; `created`: a new one, which typing goes into. */
  onOpened(created: boolean): void;
}

export function SideColumn({ session, lesson, side, onSide, files, onOpened }: SideColumnProps) {
  const hasLesson = lesson.state.lesson !== undefined;
  return (
    <div class="side-column">
      {hasLesson && (
        <div role="tablist" aria-label="Side" class="side-tabs" onKeyDown={tabListKeys}>
          {(['lesson', 'files'] as const).map((name) => (
            <button type="button" role="tab" key={name} aria-selected={side === name} tabIndex={rovingTab(side === name)} onClick={() => onSide(name)}>
              {name === 'lesson' ? 'Lesson' : 'Files'}
            </button>
          ))}
        </div>
      )}
      {hasLesson && side === 'lesson' ? (
        <LessonPane lesson={lesson} files={files} onOpen={(path) => (session.openFile(path), onOpened(false))} />
      ) : (
        <FileTree
          files={files}
          selected={session.state.project.activeFile}
          onSelect={(path) => (session.openFile(path), onOpened(false))}
          onCreate={(path) => {
            session.createFile(path);
            onOpened(true);
          }}
          onRename={(from, to) => session.renamePath(from, to)}
          onDelete={(path) => session.deletePath(path)}
        />
      )}
    </div>
  );
}
