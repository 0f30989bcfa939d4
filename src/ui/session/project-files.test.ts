import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProjectSession } from '../playground/project-session';
import { Autosave, deleted, renamed, SAVE_DELAY_MS, undone, withFile } from './project-files';
import type { Project } from '../projects/store';
import { MemoryProjectStore } from './project-store';
import { MemoryCompiler, MemoryRuntime, testProject } from './session.fixture';

describe('file operations', () => {
  it('deletes a folder with everything under it, and undo puts back the files, their tabs in order and the file shown', () => {
    const project = { ...testProject({ 'src/client/tools/a.ts': 'A', 'src/client/tools/b.ts': 'B', 'src/client/toolsmith.ts': 'T' }), openTabs: ['src/client/main.tsx', 'src/client/tools/a.ts', 'src/client/toolsmith.ts'], activeFile: 'src/client/tools/a.ts' };
    const views = { 'src/client/tools/a.ts': { anchor: 1, head: 1, top: 0, topOffset: 0, left: 0 }, 'src/client/main.tsx': { anchor: 2, head: 2, top: 0, topOffset: 0, left: 0 } };
    const result = deleted(project, 'src/client/tools', views)!;
    expect(Object.keys(result.patch.files).sort()).toEqual(['app.manifest.json', 'src/client/main.tsx', 'src/client/toolsmith.ts', 'src/server/index.ts']);
    expect(result.patch.openTabs).toEqual(['src/client/main.tsx', 'src/client/toolsmith.ts']);
    expect(result.patch.activeFile).toBe('src/client/main.tsx');
    expect(result.deletion).toMatchObject({ name: 'src/client/tools', files: { 'src/client/tools/a.ts': 'A', 'src/client/tools/b.ts': 'B' } });
    expect(Object.keys(result.deletion.views)).toEqual(['src/client/tools/a.ts']);

    const after = { ...project, ...result.patch };
    const back = undone(after, result.deletion);
    expect(back.files).toEqual(project.files);
    expect(back.openTabs).toEqual(project.openTabs);
    expect(back.activeFile).toBe('src/client/tools/a.ts');
  });

  it('a file made at a deleted path since keeps its newer text on undo', () => {
    const project = testProject({ 'notes.md': 'old' });
    const { patch, deletion } = deleted(project, 'notes.md', {})!;
    const since = { ...project, ...patch, ...withFile({ ...project, ...patch }, 'notes.md', 'new') };
    expect(undone(since, deletion).files['notes.md']).toBe('new');
    expect(deleted(project, 'missing.ts', {})).toBeUndefined();
  });

  it('renames a folder and what is open in it', () => {
    const project = { ...testProject({ 'src/client/a/x.ts': 'x' }), openTabs: ['src/client/a/x.ts'], activeFile: 'src/client/a/x.ts' };
    const patch = renamed(project, 'src/client/a', 'src/client/b');
    expect(patch.files['src/client/b/x.ts']).toBe('x');
    expect(patch.files['src/client/a/x.ts']).toBeUndefined();
    expect(patch).toMatchObject({ openTabs: ['src/client/b/x.ts'], activeFile: 'src/client/b/x.ts' });
  });
});

describe('autosave', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('journals each change at once and saves after a quiet moment; a new change restarts the wait', async () => {
    const store = new MemoryProjectStore();
    const autosave = new Autosave(store);
    const one = { ...testProject(), updatedAt: 2 };
    autosave.changed(one);
    expect(store.journaled).toEqual(one);
    expect(store.saved).toBeUndefined();
    await vi.advanceTimersByTimeAsync(SAVE_DELAY_MS - 1);
    const two = { ...one, updatedAt: 3 };
    autosave.changed(two);
    await vi.advanceTimersByTimeAsync(SAVE_DELAY_MS - 1);
    expect(store.saved).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(store.saved).toEqual(two);
  });

  it('save() and dispose() save at once', async () => {
    const store = new MemoryProjectStore();
    const autosave = new Autosave(store);
    autosave.changed({ ...testProject(), updatedAt: 2 });
    await autosave.save({ ...testProject(), updatedAt: 2 });
    expect(store.saved?.updatedAt).toBe(2);
    autosave.changed({ ...testProject(), updatedAt: 3 });
    autosave.dispose({ ...testProject(), updatedAt: 3 });
    await vi.advanceTimersByTimeAsync(0);
    expect(store.saved?.updatedAt).toBe(3);
  });
});

describe('a session: nothing acknowledged is lost', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  const open = (store: MemoryProjectStore, project = store.project ?? testProject()) => new ProjectSession(project, new MemoryCompiler(), new MemoryRuntime(), store.state, { store });

  it('an edit, a new file and a deletion made just before the page goes away are there after a reload', () => {
    const store = new MemoryProjectStore();
    const session = open(store);
    session.edit('src/client/main.tsx', 'typed');
    session.createFile('src/client/new.ts', 'new');
    session.deletePath('src/server/index.ts');
    // The page goes away now: no timer runs, no save lands; the journal holds everything.
    expect(store.saved).toBeUndefined();
    const again = store.project!;
    expect(again.files['src/client/main.tsx']).toBe('typed');
    expect(again.files['src/client/new.ts']).toBe('new');
    expect(again.files['src/server/index.ts']).toBeUndefined();
    expect(again.activeFile).toBe('src/client/new.ts');
  });

  it('undo of a deletion is durable like the deletion', () => {
    const store = new MemoryProjectStore();
    const session = open(store);
    session.deletePath('src/server/index.ts');
    expect(session.state.deleted).toEqual({ name: 'src/server/index.ts', files: 1 });
    session.undoDelete();
    expect(session.state.deleted).toBeUndefined();
    expect(store.project!.files['src/server/index.ts']).toBe('export const server = 1;');
    // Dismissed: nothing to undo any more.
    session.deletePath('src/server/index.ts');
    session.dismissDeleted();
    session.undoDelete();
    expect(store.project!.files['src/server/index.ts']).toBeUndefined();
  });

  it('a save that lands after a later change does not hide that change from a reload', async () => {
    // The deletion's save is in flight (IndexedDB has not answered) when the person clicks Undo; it
    // lands afterwards, then the page reloads before the undo's own save.
    class SlowStore extends MemoryProjectStore {
      readonly landing: (() => void)[] = [];
      override saveProject(project: Project): Promise<void> {
        return new Promise((resolve) => this.landing.push(() => void super.saveProject(project).then(resolve)));
      }
    }
    const store = new SlowStore();
    store.saved = testProject();
    const session = open(store);
    session.deletePath('src/server/index.ts');
    await vi.advanceTimersByTimeAsync(SAVE_DELAY_MS);
    expect(store.landing).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(30);
    session.undoDelete();
    await vi.advanceTimersByTimeAsync(30);
    store.landing[0]!();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.saved!.files['src/server/index.ts']).toBeUndefined();
    expect(store.project!.files['src/server/index.ts']).toBe('export const server = 1;');
  });

  it('two changes in one millisecond are ordered: the second is newer than the first', () => {
    const store = new MemoryProjectStore();
    const session = open(store);
    session.edit('src/client/main.tsx', 'one');
    const first = session.state.project.updatedAt;
    session.edit('src/client/main.tsx', 'two');
    expect(session.state.project.updatedAt).toBeGreaterThan(first);
  });

  it('a rename reaches the open session (what it shares carries the new name) without being an edit', () => {
    const store = new MemoryProjectStore();
    const session = open(store);
    const updatedAt = session.state.project.updatedAt;
    session.retitle('Renamed app');
    expect(session.state.project.title).toBe('Renamed app');
    expect(session.state.project.updatedAt).toBe(updatedAt);
    expect(store.saved).toBeUndefined();
  });

  it('a write the runtime answered is in the store when the answer comes', async () => {
    const store = new MemoryProjectStore();
    const runtime = new MemoryRuntime();
    const session = new ProjectSession(testProject(), new MemoryCompiler(), runtime, undefined, { store });
    const batch = [['INSERT INTO todos (id) VALUES (?)', ['t1']] as const];
    await runtime.write(batch);
    expect(store.state?.journal).toEqual([batch]);
    await runtime.commit(new Uint8Array([1, 2, 3]));
    expect(store.state).toEqual({ checkpoint: new Uint8Array([1, 2, 3]), journal: [], through: 1 });
    session.dispose();
  });

  it('each file keeps its cursor and scroll, moves with a rename, goes with a deletion and comes back with its undo', () => {
    const store = new MemoryProjectStore();
    const session = open(store);
    const view = { anchor: 5, head: 7, top: 0, topOffset: 0, left: 0 };
    session.setView('src/server/index.ts', view);
    session.setView('not/a/file.ts', view);
    expect(open(store).views).toEqual({ 'src/server/index.ts': view });
    session.renamePath('src/server', 'src/api');
    expect(store.views).toEqual({ 'src/api/index.ts': view });
    session.deletePath('src/api');
    expect(store.views).toEqual({});
    session.undoDelete();
    expect(store.views).toEqual({ 'src/api/index.ts': view });
    // The shown file's place, reported as the next file shows after its deletion, comes back too.
    session.deletePath('src/client/main.tsx');
    session.setView('src/client/main.tsx', { ...view, anchor: 3 });
    expect(store.views['src/client/main.tsx']).toBeUndefined();
    session.undoDelete();
    expect(store.views['src/client/main.tsx']).toEqual({ ...view, anchor: 3 });
  });
});
