/**
 * The dev loop's timing of rebuilds, with the real compiler over files in memory and a server that
 * records what it is given: the first change after quiet files is built at once but announced only once
 * the quiet window has passed; a change inside the window supersedes that build without a word (no
 * generation spent, no diagnostic for a half-saved state) and the next build takes both changes.
 */
import * as esbuild from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { baseApp, CLIENT, SERVER, SHARED } from '../analyze/__fixtures__/base-app';
import { TypeCheckSession } from '../analyze';
import { MemoryFileSystem } from '../fs';
import { DevSession, FIRST_CHANGE_MS, QUIET_WINDOW_MS } from './dev-session';
import type { DevEvent, DevBundler, LocalHost, LocalServer } from '../local';
import type { Generation } from '../generation';
import { Bundler, type BuildTarget } from '../bundle';
import type { Compiler } from '../build';

const library = nodeLibrary();
const sessions: DevSession[] = [];

afterEach(async () => {
  for (const session of sessions.splice(0)) await session.close();
});

function devSession(files: Record<string, string> = baseApp(), options: { writeMs?: number; bundled?: BuildTarget[][] } = {}) {
  const fs = new MemoryFileSystem(files);
  // The generated files (.platform/) written as slowly as asked, the order of their writes recorded.
  const writes: Array<{ path: string; text: string; at: number }> = [];
  const write = fs.writeFile.bind(fs);
  fs.writeFile = async (path, data) => {
    if (path.startsWith('.platform/')) {
      await new Promise((resolve) => setTimeout(resolve, options.writeMs ?? 0));
      writes.push({ path, text: String(data), at: performance.now() });
    }
    return write(path, data);
  };
  const events: Array<DevEvent & { at: number }> = [];
  const served: Generation[] = [];
  const typecheck = new TypeCheckSession(library);
  const checks: number[] = [];
  const check = typecheck.check.bind(typecheck);
  typecheck.check = (paths) => {
    checks.push(performance.now());
    return check(paths);
  };
  // When a build's type check begins (its files handed to the session).
  const syncs: number[] = [];
  const sync = typecheck.sync.bind(typecheck);
  typecheck.sync = (files) => {
    syncs.push(performance.now());
    sync(files);
  };
  const server: LocalServer = {
    url: 'http://127.0.0.1:1/',
    adminSecret: 'secret',
    promote: async (generation) => {
      served.push(generation);
      return { ok: true, restarted: false };
    },
    close: async () => undefined,
  };
  // The targets each bundle was asked for, when the test records them.
  const bundler = (compiler: Pick<Compiler, 'esbuild' | 'library'>): DevBundler => {
    const real = new Bundler(compiler.esbuild, compiler.library);
    return {
      bundle: (project, targets, bundleOptions) => {
        options.bundled?.push([...(targets ?? [])]);
        return real.bundle(project, targets, bundleOptions);
      },
      dispose: () => real.dispose(),
    };
  };
  const host = { now: () => performance.now(), ...(options.bundled ? { bundler } : {}) } as LocalHost;
  const session = new DevSession({ fs, compiler: { esbuild, library, typecheck }, host, server, root: '/app', emit: (event) => events.push({ ...event, at: performance.now() }), onReady: async () => undefined });
  sessions.push(session);
  const next = async (kind: string, from: number) => {
    for (let i = 0; i < 1000; i++) {
      const found = events.slice(from).find((event) => event.kind === kind);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`no ${kind}: ${JSON.stringify(events)}`);
  };
  return { fs, events, served, checks, syncs, writes, session, next };
}

const text = (generation: Generation, path: string) => new TextDecoder().decode(generation.files.get(path));

describe('DevSession: when a rebuild starts and when it is announced', () => {
  it('builds a single save at once, and announces it once the files have been quiet for the window', async () => {
    const { fs, events, checks, session, next } = devSession();
    await session.start();
    expect(events.filter((e) => e.kind === 'compile.ready')).toHaveLength(1);
    const from = events.length;
    const checked = checks.length;
    const saved = performance.now();
    await fs.writeFile('src/shared/text.ts', `${SHARED}export const edited = 1;\n`);
    session.changed(['src/shared/text.ts']);
    const start = await next('compile.start', from);
    const ready = await next('compile.ready', from);
    expect(start).toMatchObject({ generation: 2, changed: ['src/shared/text.ts'] });
    expect(ready).toMatchObject({ generation: 2 });
    // Announced after the window, though its type check began before it.
    expect(start.at - saved).toBeGreaterThanOrEqual(QUIET_WINDOW_MS - 1);
    expect(checks[checked]! - saved).toBeLessThan(start.at - saved);
  });

  it('a change inside the window supersedes the build in flight: one announced build takes both files, and the half-saved state says nothing', async () => {
    const { fs, events, served, session, next } = devSession();
    await session.start();
    const from = events.length;
    // The client imports a function that only the second file of the save adds: built alone, the first file fails to check.
    await fs.writeFile('src/client/main.tsx', CLIENT.replace("import { clean } from '../shared/text';", "import { clean, shout } from '../shared/text';").replace('clean(title)', 'shout(clean(title))'));
    session.changed(['src/client/main.tsx']);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await fs.writeFile('src/shared/text.ts', `${SHARED}export function shout(text: string): string {\n  return text.toUpperCase();\n}\n`);
    session.changed(['src/shared/text.ts']);
    const ready = await next('compile.ready', from);
    const after = events.slice(from);
    expect(after.filter((e) => e.kind === 'compile.diagnostic')).toEqual([]);
    expect(after.filter((e) => e.kind === 'compile.start')).toEqual([expect.objectContaining({ generation: 2, changed: ['src/client/main.tsx', 'src/shared/text.ts'] })]);
    expect(ready).toMatchObject({ generation: 2 });
    expect(text(served.at(-1)!, 'client/app.js')).toContain('toUpperCase');
  });

  it('a broken save after quiet files is still its own failed rebuild (DG1602), announced first', async () => {
    const { fs, events, session, next } = devSession();
    await session.start();
    const from = events.length;
    await fs.writeFile('src/shared/text.ts', `${SHARED}export const broken: number = 'text';\n`);
    session.changed(['src/shared/text.ts']);
    const failed = await next('compile.diagnostic', from);
    expect(failed).toMatchObject({ code: 'DG1602', generation: 2 });
    expect(events.slice(from).map((e) => e.kind)).toEqual(['compile.start', 'compile.diagnostic']);
  });

  it('a save that comes while the last build writes its generated files is built at once, and the files are written in the order they were made', async () => {
    const { fs, events, syncs, writes, session, next } = devSession(baseApp(), { writeMs: 60 });
    await session.start();
    const addQuery = (name: string) => SERVER.replace('queries: {', `queries: {\n    '${name}': query({ input: {}, handler: async () => 1 }),`);
    // A new query changes the contract: its build writes the generated types again, slowly.
    let from = events.length;
    await fs.writeFile('src/server/index.ts', addQuery('extra.one'));
    session.changed(['src/server/index.ts']);
    await next('compile.ready', from);
    // The next save, right after compile.ready, while those files are still being written.
    from = events.length;
    const synced = syncs.length;
    const saved = performance.now();
    await fs.writeFile('src/server/index.ts', addQuery('extra.two'));
    session.changed(['src/server/index.ts']);
    await next('compile.ready', from);
    expect(syncs[synced]! - saved).toBeGreaterThanOrEqual(FIRST_CHANGE_MS - 0.5);
    await session.close();
    const contract = writes.filter((w) => w.path === '.platform/types/app.d.ts');
    expect(contract.map((w) => /extra\.two/.test(w.text))).toEqual([...contract.slice(0, -1).map(() => false), true]);
    expect(contract.at(-2)!.text).toContain('extra.one');
    // Its type check began while the last build's contract was still being written, not once the
    // writes were done (an order of events, which a busy machine does not change; the gap to the
    // save is no assertion: under load it passed the quiet window).
    expect(syncs[synced]!).toBeLessThan(contract.at(-2)!.at);
  });
});

describe('DevSession: an edit only one bundle can see', () => {
  it('bundles that target alone and serves the other as it was; an edit both see bundles both', async () => {
    const bundled: BuildTarget[][] = [];
    const { fs, events, served, session, next } = devSession(baseApp(), { bundled });
    await session.start();
    expect(bundled).toEqual([['client', 'server']]);
    const edit = async (path: string, content: string) => {
      const from = events.length;
      bundled.length = 0;
      await fs.writeFile(path, content);
      session.changed([path]);
      await next('compile.ready', from);
      return { before: served.at(-2)!, after: served.at(-1)! };
    };
    const same = (a: Generation, b: Generation, prefix: string) => {
      const paths = [...a.files.keys()].filter((path) => path.startsWith(prefix));
      expect(paths.length).toBeGreaterThan(0);
      expect([...b.files.keys()].filter((path) => path.startsWith(prefix))).toEqual(paths);
      for (const path of paths) expect(b.files.get(path)).toEqual(a.files.get(path));
    };

    let { before, after } = await edit('src/server/index.ts', SERVER.replace("queries: {", "queries: {\n    'extra.count': query({ input: {}, handler: async () => 41 + 1 }),"));
    expect(bundled).toEqual([['server']]);
    expect(text(after, 'server/index.js')).toContain('41 + 1');
    same(before, after, 'client/');

    ({ before, after } = await edit('src/client/main.tsx', CLIENT.replace('clean(title)', 'clean(title) + "!"')));
    expect(bundled).toEqual([['client']]);
    expect(text(after, 'client/app.js')).toContain('"!"');
    same(before, after, 'server/');

    // src/shared/ goes into both bundles.
    ({ before, after } = await edit('src/shared/text.ts', `${SHARED}export const edited = 2;\n`));
    expect(bundled).toEqual([['client', 'server']]);
  });
});
