import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProjectSession } from '../playground/project-session';
import { canonicalJson } from '../../core/hash';
import { CLIENT_BUNDLE, type Generation, generationText, SERVER_BUNDLE } from '../../core/generation';
import { MemoryProjectStore } from './project-store';
import { built, MemoryCompiler, MemoryRuntime, testProject, until } from './session.fixture';

const SERVER = 'src/server/index.ts';
const CLIENT = 'src/client/main.tsx';

function open(options: { store?: MemoryProjectStore; files?: Record<string, string>; compiler?: MemoryCompiler; runtime?: MemoryRuntime } = {}) {
  const store = options.store ?? new MemoryProjectStore();
  const compiler = options.compiler ?? new MemoryCompiler();
  const runtime = options.runtime ?? new MemoryRuntime();
  const session = new ProjectSession(testProject(options.files), compiler, runtime, store.state, { store });
  return { store, compiler, runtime, session };
}

/** A generation's server bundle, and its client's, as text. */
const serverOf = (generation: Generation | undefined) => (generation ? generationText(generation, SERVER_BUNDLE) ?? '' : '');
const clientOf = (generation: Generation | undefined) => (generation ? generationText(generation, CLIENT_BUNDLE) ?? '' : '');

const previews = (compiler: MemoryCompiler) => compiler.calls.filter((c) => c.mode === 'preview');

describe('the compile loop', () => {
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] }));
  afterEach(() => void vi.useRealTimers());

  it('builds once at start, runs the runtime on the first generation and keeps the build as the last good one', async () => {
    const { session, compiler, runtime, store } = open();
    const state = await until(session, built);
    expect(previews(compiler)).toHaveLength(1);
    expect(state.generation!.number).toBe(1);
    expect(runtime.starts).toHaveLength(1);
    expect(runtime.starts[0]!.serverCode).toContain('export const server = 1;');
    expect(session.state.events.map((e) => e.kind)).toEqual(['compile.start', 'compile.ready']);
    await vi.advanceTimersByTimeAsync(0);
    expect(serverOf(store.lastGood?.generation)).toBe(serverOf(state.generation!));
    expect(store.good).toBe(canonicalJson(session.state.project.files));
  });

  it('an edit after a pause builds at once; a burst of keystrokes builds once, after the burst, with the last text', async () => {
    const { session, compiler } = open();
    await until(session, built);
    await vi.advanceTimersByTimeAsync(1000);
    session.edit(CLIENT, 'a');
    await vi.advanceTimersByTimeAsync(0);
    expect(previews(compiler)).toHaveLength(2);
    await until(session, (s) => s.generation?.number === 2);
    // Keys 40 ms apart: none builds while they come.
    for (const text of ['ab', 'abc', 'abcd', 'abcde']) {
      await vi.advanceTimersByTimeAsync(40);
      session.edit(CLIENT, text);
    }
    await vi.advanceTimersByTimeAsync(40);
    expect(previews(compiler)).toHaveLength(2);
    const state = await until(session, (s) => s.compile === 'ready' && clientOf(s.generation!).includes('abcde'));
    expect(previews(compiler)).toHaveLength(3);
    expect(previews(compiler)[2]!.files[CLIENT]).toBe('abcde');
    expect(state.generation!.number).toBe(3);
  });

  it('a build overtaken by an edit is dropped: the previews never show the older files', async () => {
    const { session, compiler } = open();
    await until(session, built);
    await vi.advanceTimersByTimeAsync(1000);
    compiler.hold();
    session.edit(CLIENT, 'old');
    await vi.advanceTimersByTimeAsync(1000);
    session.edit(CLIENT, 'new');
    await vi.advanceTimersByTimeAsync(1000);
    const shown: string[] = [];
    session.subscribe(() => shown.push(clientOf(session.state.generation!)));
    compiler.release();
    await until(session, (s) => s.compile === 'ready' && clientOf(s.generation!).includes('new'));
    expect(shown.some((code) => code.includes('old'))).toBe(false);
  });

  it('a client-only change keeps the runtime running; a server change restarts it on the committed data', async () => {
    const { session, runtime } = open();
    await until(session, built);
    await runtime.commit(new Uint8Array([7]));
    session.edit(CLIENT, 'export const client = 2;');
    await until(session, (s) => s.generation?.number === 2 && s.compile === 'ready');
    expect(runtime.starts).toHaveLength(1);
    expect(session.state.events.at(-1)).toMatchObject({ kind: 'compile.ready', runtime: 'kept' });
    session.edit(SERVER, 'export const server = 2;');
    await until(session, (s) => s.generation?.number === 3 && s.compile === 'ready');
    expect(runtime.starts).toHaveLength(2);
    expect(runtime.starts[1]!.state?.checkpoint).toEqual(new Uint8Array([7]));
  });

  it('a build that kept a target says which in compile.ready: server=kept keeps the runtime (the same server code), client=kept restarts it', async () => {
    /** Says its result kept `kept` (as the worker's BundleReuse does; the fixture's bundles are the same either way). */
    class KeepingCompiler extends MemoryCompiler {
      kept: 'client' | 'server' | undefined;
      override async compile(...args: Parameters<MemoryCompiler['compile']>) {
        const result = await super.compile(...args);
        return result?.files && this.kept ? { ...result, kept: this.kept } : result;
      }
    }
    const compiler = new KeepingCompiler();
    const { session, runtime } = open({ compiler });
    await until(session, built);
    compiler.kept = 'server';
    session.edit(CLIENT, 'export const client = 2;');
    await until(session, (s) => s.generation?.number === 2 && s.compile === 'ready');
    expect(runtime.starts).toHaveLength(1);
    expect(session.state.events.at(-1)).toMatchObject({ kind: 'compile.ready', runtime: 'kept', server: 'kept' });
    expect(session.state.events.at(-1)).not.toHaveProperty('client');
    compiler.kept = 'client';
    session.edit(SERVER, 'export const server = 2;');
    await until(session, (s) => s.generation?.number === 3 && s.compile === 'ready');
    expect(runtime.starts).toHaveLength(2);
    expect(session.state.events.at(-1)).toMatchObject({ kind: 'compile.ready', client: 'kept' });
    expect(session.state.events.at(-1)).not.toHaveProperty('server');
    expect(session.state.events.at(-1)).not.toHaveProperty('runtime');
  });

  it("a server-only change keeps the client's number (the previews keep their pages); a client change or a reload of the previews gives a new one", async () => {
    const { session } = open();
    await until(session, built);
    session.edit(SERVER, 'export const server = 2;');
    const server = await until(session, (s) => s.generation?.number === 2 && s.compile === 'ready');
    expect(server.generation!.client).toBe(1);
    session.edit(CLIENT, 'export const client = 2;');
    const client = await until(session, (s) => s.generation?.number === 3 && s.compile === 'ready');
    expect(client.generation!.client).toBe(3);
    session.reloadPreviews();
    expect(session.state.generation).toMatchObject({ number: 4, client: 4 });
    session.edit(SERVER, 'export const server = 3;');
    const again = await until(session, (s) => s.generation?.number === 5 && s.compile === 'ready');
    expect(again.generation!.client).toBe(4);
    // A new title is a new page around the same code: a new client.
    session.edit('app.manifest.json', JSON.stringify({ ...JSON.parse(session.state.project.files['app.manifest.json']!), app: { title: 'Renamed' } }));
    const titled = await until(session, (s) => s.generation?.number === 6 && s.compile === 'ready');
    expect(titled.generation!.client).toBe(6);
  });

  it('a failed rebuild keeps the last good generation serving, DG1602 before the real error, and the next good build takes over', async () => {
    const { session } = open();
    await until(session, built);
    session.edit(SERVER, 'export const server = 2;\n// error: Type string is not assignable');
    const failed = await until(session, (s) => s.compile === 'failed');
    expect(failed.generation!.number).toBe(1);
    expect(failed.stale).toBe(true);
    expect(failed.diagnostics.map((d) => d.code)).toEqual(['DG1602', 'DG1002']);
    expect(failed.diagnostics[1]).toMatchObject({ file: SERVER, span: { line: 2 } });
    session.edit(SERVER, 'export const server = 3;');
    const fixed = await until(session, (s) => s.compile === 'ready');
    expect(fixed).toMatchObject({ stale: false, diagnostics: [] });
    expect(serverOf(fixed.generation!)).toContain('server = 3');
  });

  it('errors only in test files block the tests, not the preview', async () => {
    const { session, compiler } = open();
    await until(session, (s) => built(s) && s.checked);
    await vi.advanceTimersByTimeAsync(1000);
    session.createFile('tests/todo.test.ts', '// error: bad test');
    const state = await until(session, (s) => s.compile !== 'compiling' && s.generation?.number === 2);
    expect(state.compile).toBe('ready');
    expect(state.diagnostics.map((d) => d.file)).toEqual(['tests/todo.test.ts']);
    expect(previews(compiler).at(-1)!.files['tests/todo.test.ts']).toBeUndefined();
  });

  it('a new build the runtime refuses (DG1603) hands back to the last good one', async () => {
    const { session, runtime } = open();
    await until(session, built);
    runtime.refuse = (app) => (app.serverCode.includes('server = 2') ? Object.assign(new Error('todos.title: is a string field'), { code: 'schema_change_refused' }) : undefined);
    session.edit(SERVER, 'export const server = 2;');
    const state = await until(session, (s) => s.compile === 'failed');
    expect(state.diagnostics[0]).toMatchObject({ code: 'DG1603', detail: { code: 'schema_change_refused' } });
    expect(state.diagnostics[0]!.message).toContain('todos.title: is a string field');
    expect(state.stale).toBe(true);
    expect(runtime.starts.at(-1)!.serverCode).toContain('server = 1');
  });

  it('a reopened project whose files do not build previews the last good build of an earlier session, marked', async () => {
    const first = open();
    await until(first.session, built);
    first.session.edit(SERVER, '// error: broken');
    await until(first.session, (s) => s.compile === 'failed');
    first.session.dispose();
    // A reload: the files as journaled, the same store.
    const runtime = new MemoryRuntime();
    const session = new ProjectSession(first.store.project!, new MemoryCompiler(), runtime, first.store.state, { store: first.store });
    const state = await until(session, (s) => s.compile === 'failed');
    expect(state.stale).toBe(true);
    expect(state.restoredFrom).toBe(first.store.lastGood!.savedAt);
    expect(serverOf(state.generation!)).toContain('server = 1');
    expect(runtime.starts).toHaveLength(1);
    expect(session.state.events.map((e) => e.kind)).toContain('compile.restored');
  });

  it("a session's first build is previewed before its type check; until the check ran, nothing says it is clean", async () => {
    const { session, compiler } = open();
    compiler.hold();
    await vi.advanceTimersByTimeAsync(10);
    expect(session.state.checked).toBe(false);
    compiler.release();
    const first = await until(session, built);
    expect(compiler.calls.map((c) => [c.mode, c.skipTypecheck])[0]).toEqual(['preview', true]);
    expect(first.events.at(-1)).toMatchObject({ kind: 'compile.ready', typecheck: 'after' });
    const checked = await until(session, (s) => s.checked);
    expect(compiler.calls.map((c) => [c.mode, c.skipTypecheck])).toEqual([
      ['preview', true],
      ['check', false],
    ]);
    expect(checked).toMatchObject({ compile: 'ready', diagnostics: [] });
    // Later builds are checked before they run, as before.
    await vi.advanceTimersByTimeAsync(1000);
    session.edit(CLIENT, 'export const client = 2;');
    await until(session, (s) => s.generation?.number === 2);
    expect(compiler.calls.at(-1)).toMatchObject({ mode: 'preview', skipTypecheck: false });
    expect(session.state.checked).toBe(true);
  });

  it("a quick preview the runtime cannot start gives way to the compiler's bundle of the same files, still before their check", async () => {
    const { session, compiler, runtime } = open();
    compiler.quickPreviews = true;
    runtime.refuse = (app) => (app.serverCode.startsWith('// quick') ? new Error('SyntaxError: Unexpected token') : undefined);
    const first = await until(session, built);
    expect(compiler.calls.slice(0, 2).map((c) => [c.mode, c.skipTypecheck, c.quick])).toEqual([
      ['preview', true, true],
      ['preview', true, false],
    ]);
    expect(serverOf(first.generation!).startsWith('// quick')).toBe(false);
    expect(first.diagnostics).toEqual([]);
    expect(first.events.find((e) => e.kind === 'runtime.restarted')?.reason).toMatch(/quick preview could not start \(SyntaxError: Unexpected token\)/);
    expect(await until(session, (s) => s.checked)).toMatchObject({ compile: 'ready', diagnostics: [] });
  });

  it('a first build the type check finds broken is taken down, and the state says so', async () => {
    const { session, runtime } = open({ files: { [SERVER]: 'export const server = 1;\n// error: Type string is not assignable' } });
    const shown: { generation: number | undefined; checked: boolean }[] = [];
    session.subscribe(() => shown.push({ generation: session.state.generation?.number, checked: session.state.checked }));
    const down = await until(session, (s) => s.compile === 'failed');
    expect(down).toMatchObject({ takenDown: true, checked: true, stale: false, generation: undefined });
    expect(down.diagnostics.map((d) => d.code)).toEqual(['DG1002']);
    expect(session.state.events.map((e) => e.kind)).toContain('compile.taken-down');
    // It was previewed (unchecked) before the check took it down.
    expect(shown).toContainEqual({ generation: 1, checked: false });
    expect(runtime.starts).toHaveLength(1);
  });

  it("a first build's bundle refused before any check still gets the type check's whole list", async () => {
    const compiler = new MemoryCompiler();
    const { session } = open({ compiler, files: { [SERVER]: 'export const server = 1;\n// error: not bundled' } });
    // A bundle refused (an analysis error): the unchecked build fails; the check follows.
    const original = compiler.compile.bind(compiler);
    compiler.compile = async (files, mode, focus, options) => {
      const result = await original(files, mode, focus, options);
      return mode === 'preview' ? { diagnostics: [{ code: 'DG1201', severity: 'error', message: 'refused by the bundler', file: SERVER }], timings: result!.timings } : result;
    };
    const failed = await until(session, (s) => s.compile === 'failed' && s.checked);
    expect(failed.diagnostics.map((d) => d.code).sort()).toEqual(['DG1002', 'DG1201']);
  });

  it('a reopened project shows its stored last good build at once, before the compiler answers; the first build then takes over without a restart', async () => {
    const first = open({ files: { [SERVER]: 'export const server = 5;' } });
    await until(first.session, (s) => built(s) && s.checked);
    await vi.advanceTimersByTimeAsync(0);
    first.session.dispose();
    const compiler = new MemoryCompiler();
    compiler.hold();
    const runtime = new MemoryRuntime();
    const session = new ProjectSession(first.store.project!, compiler, runtime, first.store.state, { store: first.store });
    const shown = await until(session, (s) => s.generation !== undefined);
    expect(shown.compile).not.toBe('ready');
    expect(shown).toMatchObject({ restoredFrom: first.store.lastGood!.savedAt, stale: false, checked: false });
    expect(serverOf(shown.generation!)).toContain('server = 5');
    expect(runtime.starts).toHaveLength(1);
    compiler.release();
    const ready = await until(session, (s) => s.compile === 'ready');
    // Its first build is checked before it replaces the preview already up; the same bundles keep the runtime and the page.
    expect(compiler.calls.map((c) => [c.mode, c.skipTypecheck])).toEqual([['preview', false]]);
    expect(ready).toMatchObject({ restoredFrom: undefined, checked: true });
    expect(ready.generation!.client).toBe(shown.generation!.client);
    expect(runtime.starts).toHaveLength(1);
  });

  it('a stored build shown at once stays, marked, when the reopened files do not build', async () => {
    const first = open();
    await until(first.session, (s) => built(s) && s.checked);
    await vi.advanceTimersByTimeAsync(1000);
    first.session.edit(SERVER, 'export const server = 2;\n// error: broken');
    await until(first.session, (s) => s.compile === 'failed');
    first.session.dispose();
    const runtime = new MemoryRuntime();
    const session = new ProjectSession(first.store.project!, new MemoryCompiler(), runtime, first.store.state, { store: first.store });
    const state = await until(session, (s) => s.compile === 'failed');
    expect(state).toMatchObject({ stale: true, checked: true, restoredFrom: first.store.lastGood!.savedAt });
    expect(serverOf(state.generation!)).toContain('server = 1');
    // The broken files never ran.
    expect(runtime.starts.map((s) => s.serverCode.includes('server = 2'))).toEqual([false]);
  });

  it('a reopened project whose stored build is read after its first build starts still checks that build before it runs', async () => {
    const first = open();
    await until(first.session, (s) => built(s) && s.checked);
    await vi.advanceTimersByTimeAsync(1000);
    first.session.edit(SERVER, 'export const server = 2;\n// error: broken');
    await until(first.session, (s) => s.compile === 'failed');
    first.session.dispose();
    // IndexedDB answering late: the stored build arrives 50 ms after the first build was scheduled.
    const store = first.store;
    const load = store.loadLastGood.bind(store);
    store.loadLastGood = () => new Promise((resolve) => setTimeout(() => resolve(load()), 50));
    const runtime = new MemoryRuntime();
    const compiler = new MemoryCompiler();
    const session = new ProjectSession(store.project!, compiler, runtime, store.state, { store });
    const state = await until(session, (s) => s.compile === 'failed' && s.generation !== undefined);
    expect(compiler.calls[0]).toMatchObject({ mode: 'preview', skipTypecheck: false });
    expect(state).toMatchObject({ stale: true, restoredFrom: store.lastGood!.savedAt });
    expect(runtime.starts.some((s) => s.serverCode.includes('server = 2'))).toBe(false);
  });
});
