import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProjectSession } from '../playground/project-session';
import { MemoryProjectStore } from './project-store';
import { built, MemoryCompiler, MemoryRuntime, testProject, until } from './session.fixture';

const bytes = (...values: number[]) => new Uint8Array(values);

function open(options: { store?: MemoryProjectStore; pendingImport?: string } = {}) {
  const store = options.store ?? new MemoryProjectStore();
  const runtime = new MemoryRuntime();
  const session = new ProjectSession(testProject(), new MemoryCompiler(), runtime, store.state, { store, ...(options.pendingImport !== undefined ? { pendingImport: options.pendingImport } : {}) });
  return { store, runtime, session };
}

describe("the session's data", () => {
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] }));
  afterEach(() => void vi.useRealTimers());

  it('starts the runtime on the committed data it was opened with', async () => {
    const store = new MemoryProjectStore();
    const journal = [[['INSERT INTO t VALUES (?)', [1]]] as const];
    store.state = { checkpoint: bytes(4, 2), journal };
    const { session, runtime } = open({ store });
    await until(session, built);
    expect(runtime.starts[0]!.state).toMatchObject({ checkpoint: bytes(4, 2), journal });
  });

  it('Reset data keeps a recovery copy (also across a reload), empties the store and restarts empty; restore brings the copy back', async () => {
    const { session, runtime, store } = open();
    await until(session, built);
    await runtime.commit(bytes(1, 2, 3));
    await session.resetData();
    expect(store.state?.checkpoint).toBeUndefined();
    expect(store.state?.journal).toEqual([]);
    expect(store.recovery?.state).toEqual(bytes(1, 2, 3));
    expect(session.state.recovery).toEqual({ savedAt: store.recovery!.savedAt });
    expect(runtime.starts.at(-1)!.state).toBeUndefined();
    expect(session.state.events.at(-1)).toMatchObject({ kind: 'state.reset', recoveryCopy: 3 });

    // A reload still offers the copy.
    session.dispose();
    const again = open({ store });
    await until(again.session, (s) => built(s) && s.recovery !== undefined);
    const generation = again.session.state.generation!.number;
    expect(await again.session.restoreRecovery()).toEqual({ ok: true });
    expect(again.runtime.starts.at(-1)!.state?.checkpoint).toEqual(bytes(1, 2, 3));
    expect(store.state?.checkpoint).toEqual(bytes(1, 2, 3));
    expect(store.recovery).toBeUndefined();
    expect(again.session.state.recovery).toBeUndefined();
    expect(again.session.state.notice).toMatchObject({ tone: 'info' });
    expect(again.session.state.generation!.number).toBeGreaterThan(generation);
    expect(await again.session.restoreRecovery()).toEqual({ ok: false, message: 'There is no recovery copy.' });
  });

  it('empty data keeps no recovery copy', async () => {
    const { session, store } = open();
    await until(session, built);
    await session.resetData();
    expect(store.recovery).toBeUndefined();
    expect(session.state.recovery).toBeUndefined();
  });

  it('a recovery copy the app refuses leaves the current data running and says why', async () => {
    const { session, runtime, store } = open();
    await until(session, built);
    await runtime.commit(bytes(9));
    await session.resetData();
    await runtime.commit(bytes(5));
    runtime.refuse = (app) => (app.state?.checkpoint?.[0] === 9 ? new Error('todos.done: is a boolean field') : undefined);
    expect(await session.restoreRecovery()).toEqual({ ok: false, message: 'todos.done: is a boolean field' });
    expect(runtime.starts.at(-1)!.state?.checkpoint).toEqual(bytes(5));
    expect(store.state?.checkpoint).toEqual(bytes(5));
    expect(store.recovery?.state).toEqual(bytes(9));
    expect(session.state.notice).toEqual({ tone: 'error', message: 'The recovery copy could not be restored: todos.done: is a boolean field' });
  });

  it('restoring before the app runs is refused', async () => {
    const store = new MemoryProjectStore();
    store.recovery = { state: bytes(1), savedAt: 1 };
    const session = new ProjectSession(testProject({ 'src/server/index.ts': '// error: broken' }), new MemoryCompiler(), new MemoryRuntime(), undefined, { store });
    await until(session, (s) => s.compile === 'failed' && s.recovery !== undefined);
    expect(await session.restoreRecovery()).toEqual({ ok: false, message: 'The app is not running: fix the build first.' });
    expect(store.recovery).toEqual({ state: bytes(1), savedAt: 1 });
  });

  it("a share link's data is imported once, before the first generation shows, and the outcome noticed", async () => {
    const { session, store, runtime } = open({ pendingImport: JSON.stringify({ records: { todos: 2, notes: 1 } }) });
    const state = await until(session, built);
    expect(state.notice).toEqual({ tone: 'info', message: "The link's data was imported: 3 records." });
    expect(store.pendingImportCleared).toBe(true);
    expect(store.state?.checkpoint).toEqual(runtime.committedState?.checkpoint);
    expect(session.state.events.map((e) => e.kind)).toEqual(['compile.start', 'state.imported', 'compile.ready']);
  });

  it("a refused share link's data shows its codes", async () => {
    const { session, store } = open({ pendingImport: 'not json' });
    const state = await until(session, built);
    expect(state.notice).toMatchObject({ tone: 'error', code: 'DG1824', detailCode: 'state_import_invalid' });
    expect(state.notice!.message).toMatch(/^The link's data could not be imported: /);
    expect(store.pendingImportCleared).toBe(true);
  });
});
