/**
 * What the toolbar says about the build, and the note over a preview that shows an older build: from the
 * session's state and the compiler's load progress. Pure, tested alone (compile-status.test.ts).
 */
import type { LoadProgress } from '../compiler-client';
import type { SessionState } from '../session/session-state';

type BuildState = Pick<SessionState, 'compile' | 'checked' | 'takenDown' | 'stale' | 'restoredFrom' | 'timings' | 'generation'>;

/** "Loading the compiler… 40% of 14.2 MB" while esbuild's wasm arrives, then while it starts. */
export function loadingText({ loaded, total }: LoadProgress): string {
  if (total > 0 && loaded < total) return `Loading the compiler… ${Math.floor((loaded / total) * 100)}% of ${(total / 1e6).toFixed(1)} MB`;
  if (total === 0 && loaded > 0) return `Loading the compiler… ${(loaded / 1e6).toFixed(1)} MB`;
  return loaded > 0 ? 'Starting the compiler…' : 'Loading the compiler…';
}

/** When a last good build kept by an earlier session was saved, as the status bar says it. */
export function savedWhen(savedAt: number, now = new Date()): string {
  const date = new Date(savedAt);
  const sameDay = date.toDateString() === now.toDateString();
  return `saved ${sameDay ? date.toLocaleTimeString() : date.toLocaleString()}, before this session`;
}

/** The toolbar's status: loading, compiling, ready (and whether the types are still being checked), or why the build failed and what is shown instead. */
export function compileStatusText(state: BuildState, progress: LoadProgress, now?: Date): string {
  const { compile, checked, takenDown, stale, restoredFrom, timings } = state;
  const lastGood = `showing the last good build${restoredFrom ? ` (${savedWhen(restoredFrom, now)})` : ''}`;
  if (compile === 'loading') return loadingText(progress);
  if (compile === 'compiling') return 'Compiling…';
  if (compile === 'ready') return `Ready${timings && timings.total >= 1 ? ` in ${Math.round(timings.total)} ms` : ''}${checked ? '' : ', checking types…'}`;
  if (takenDown) return `Build failed: the type check found errors, so its preview was taken down${stale ? `; ${lastGood}` : ''}`;
  return stale ? `Build failed: ${lastGood}` : 'Build failed';
}

/** The note over the previews when they show a build older than the files: a reopened project's last good build while this session's first is made, or the last good one while the current files do not build. */
export function staleNote(state: BuildState, now?: Date): string | undefined {
  const { generation, stale, restoredFrom, compile } = state;
  if (!generation) return undefined;
  if (stale) return `Showing the last good build${restoredFrom ? `, ${savedWhen(restoredFrom, now)}` : ''}: the current files do not build (see Problems).`;
  if (restoredFrom && compile !== 'ready') return `Showing the last good build, ${savedWhen(restoredFrom, now)}, while the current files are built.`;
  return undefined;
}
