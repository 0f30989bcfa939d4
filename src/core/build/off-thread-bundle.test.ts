/**
 * compileProject with a bundler that works off the compiling thread (the playground's bundler worker):
 * the bundle is asked for before the type check and waited for after it, so the two run at once; the
 * result is the same artifact; a build with type errors is still refused whole.
 */
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { baseApp, CLIENT } from '../analyze/__fixtures__/base-app';
import type { Project } from '../project';
import { MemoryFileSystem } from '../fs';
import { compileProject } from './build';
import { Bundler, type BuildTarget, type BundleResult, type ProjectBundler } from '../bundle';
import { TypeCheckSession } from '../analyze';

const library = nodeLibrary();

/** Bundles with a real Bundler, as the bundler worker does, and notes when it was asked and when it answered. */
class NotingBundler implements ProjectBundler {
  readonly offThread = true;
  readonly bundler = new Bundler(esbuild, library);
  readonly log: string[];
  constructor(log: string[]) {
    this.log = log;
  }
  async bundle(project: Project, targets?: readonly BuildTarget[]): Promise<BundleResult> {
    this.log.push('bundle asked');
    const result = await this.bundler.bundle(project, targets);
    this.log.push('bundle answered');
    return result;
  }
  dispose(): Promise<void> {
    return this.bundler.dispose();
  }
}

function notingSession(log: string[]): TypeCheckSession {
  const session = new TypeCheckSession(library);
  const check = session.check.bind(session);
  session.check = (paths) => {
    log.push('types checked');
    return check(paths);
  };
  return session;
}

describe('a bundler off the compiling thread', () => {
  it('is asked before the type check and gives the same artifact as one on it', async () => {
    const log: string[] = [];
    const bundler = new NotingBundler(log);
    const off = await compileProject(new MemoryFileSystem(baseApp()), { esbuild, library, typecheck: notingSession(log), bundler }, { targets: ['client', 'server', 'test'] });
    expect(log.indexOf('bundle asked')).toBeGreaterThanOrEqual(0);
    expect(log.indexOf('bundle asked')).toBeLessThan(log.indexOf('types checked'));
    const on = await compileProject(new MemoryFileSystem(baseApp()), { esbuild, library, typecheck: new TypeCheckSession(library) });
    expect(off.id).toBeDefined();
    expect(off.id).toBe(on.id);
    await bundler.dispose();
  });

  it('a type error still refuses the build whole, though the bundle was made', async () => {
    const log: string[] = [];
    const bundler = new NotingBundler(log);
    const files = { ...baseApp(), 'src/client/main.tsx': `${CLIENT}\nexport const broken: number = 'text';\n` };
    const outcome = await compileProject(new MemoryFileSystem(files), { esbuild, library, typecheck: notingSession(log), bundler });
    expect(outcome.files).toBeUndefined();
    expect(outcome.diagnostics.some((d) => d.code === 'DG1205')).toBe(true);
    expect(log).toContain('bundle asked');
    await bundler.dispose();
  });

  it('a bundle that answers after a failed check starts nothing (onBundled is not called once the compile has answered)', async () => {
    const log: string[] = [];
    const bundler = new NotingBundler(log);
    const slow: ProjectBundler = {
      offThread: true,
      bundle: async (project, targets) => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return bundler.bundle(project, targets);
      },
      dispose: () => bundler.dispose(),
    };
    const files = { ...baseApp(), 'src/server/index.ts': `${baseApp()['src/server/index.ts']}\nexport const broken: number = 'text';\n` };
    const started: unknown[] = [];
    const outcome = await compileProject(new MemoryFileSystem(files), { esbuild, library, typecheck: new TypeCheckSession(library), bundler: slow }, { targets: ['client', 'server'], onBundled: (bundled) => started.push(bundled) });
    expect(outcome.diagnostics.some((d) => d.code === 'DG1205')).toBe(true);
    // The bundle answers later (200 ms, then the bundling itself, longer on a loaded machine): waited for, not timed.
    for (let waited = 0; !log.includes('bundle answered') && waited < 60_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log).toContain('bundle answered');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started).toEqual([]);
    await bundler.dispose();
  });
});
