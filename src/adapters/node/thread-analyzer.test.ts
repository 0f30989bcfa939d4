/**
 * `platform dev`'s analyzer in Node: on the command's thread until it moves to a worker thread (the
 * prebuilt check-thread.js, built with the CLI), the same analysis from both, the partial analysis given
 * to `beforeTypecheck` before the check's answer, and back on the command's thread when the worker
 * thread fails. A small project's checks stay on the command's thread, and an analysis running there
 * as the thread warms up keeps its session's kept results.
 */
import * as esbuild from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type Analysis, TypeCheckSession } from '../../core/analyze';
import { baseApp, SHARED } from '../../core/analyze/__fixtures__/base-app';
import type { Compiler } from '../../core/build';
import { MemoryFileSystem } from '../../core/fs';
import { nodeLibrary } from './library';
import { NodeFileSystem } from './node-file-system';
import { BUILT_CHECK_SCRIPT, ThreadAnalyzer } from './thread-analyzer';

const library = nodeLibrary();
const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'platform-thread-analyzer-'));
  made.push(dir);
  return dir;
}

async function projectOnDisk(files: Record<string, string> = baseApp()): Promise<NodeFileSystem> {
  const fs = new NodeFileSystem(scratch());
  for (const [path, text] of Object.entries(files)) await fs.writeFile(path, text);
  return fs;
}

const compiler = (): Compiler => ({ esbuild, library, typecheck: new TypeCheckSession(library, { forTypeErrorsOnly: true }) });

/** What an analysis says, without its timings (each thread's own clock). */
const said = (analysis: Analysis) => ({ diagnostics: analysis.diagnostics, generated: [...analysis.generated], zones: analysis.graph?.zones, operations: analysis.operations });

const BROKEN = `${SHARED}export const broken: number = 'text';\n`;

describe('ThreadAnalyzer', () => {
  it('analyses on this thread until it moves, then on the worker thread: the same answers, the project on the caller\'s file system', async () => {
    const fs = await projectOnDisk();
    const analyzer = new ThreadAnalyzer(compiler(), BUILT_CHECK_SCRIPT, { moveAtFiles: 0 });
    try {
      const here = await analyzer.analyze(fs, {});
      expect(analyzer.offThread).toBe(false);
      expect(here.diagnostics).toEqual([]);
      await analyzer.moveOffThread();
      expect(analyzer.offThread).toBe(true);
      const there = await analyzer.analyze(fs, {});
      expect(said(there)).toEqual(said(here));
      expect(there.project?.fs).toBe(fs);
      // The parsed sources stay with the thread's session.
      expect(there.graph?.sources.size).toBe(0);

      // An edit on disk is read by the thread; the partial analysis comes before the check's answer.
      await fs.writeFile('src/shared/text.ts', BROKEN);
      const order: string[] = [];
      const broken = await analyzer.analyze(fs, {
        focus: 'src/shared/text.ts',
        beforeTypecheck: async (partial) => {
          expect(partial.project?.fs).toBe(fs);
          expect(partial.diagnostics).toEqual([]);
          order.push('before');
        },
      }).then((analysis) => (order.push('analyzed'), analysis));
      expect(order).toEqual(['before', 'analyzed']);
      const local = new ThreadAnalyzer(compiler(), undefined);
      expect(said(broken)).toEqual(said(await local.analyze(fs, { focus: 'src/shared/text.ts' })));
      expect(broken.diagnostics.map((d) => [d.code, d.file])).toContainEqual(['DG1205', 'src/shared/text.ts']);
    } finally {
      await analyzer.dispose();
    }
  });

  it("keeps this thread's session for an analysis running here while the thread warms up: only the edited file is checked again", async () => {
    const fs = await projectOnDisk();
    const session = new TypeCheckSession(library, { forTypeErrorsOnly: true });
    const checked: string[] = [];
    const check = session.check.bind(session);
    session.check = (paths) => (checked.push(...paths), check(paths));
    const analyzer = new ThreadAnalyzer({ esbuild, library, typecheck: session }, BUILT_CHECK_SCRIPT, { moveAtFiles: 0 });
    try {
      await analyzer.analyze(fs, {});
      // A body-only edit, analysed here; it waits before its check until the thread is warm.
      await fs.writeFile('src/shared/text.ts', `${SHARED}// edited\n`);
      checked.length = 0;
      let pause!: () => void;
      const paused = new Promise<void>((resolve) => (pause = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const running = analyzer.analyze(fs, { beforeTypecheck: async () => (pause(), released) });
      await paused;
      const moved = analyzer.moveOffThread();
      while (!analyzer.offThread) await new Promise((resolve) => setTimeout(resolve, 10));
      release();
      const analysis = await running;
      await moved;
      expect(analysis.diagnostics).toEqual([]);
      expect([...new Set(checked)]).toEqual(['src/shared/text.ts']);
    } finally {
      await analyzer.dispose();
    }
  });

  it('stays on this thread for a small project, a project held in memory, or without a thread script', async () => {
    const inMemory = new ThreadAnalyzer(compiler(), BUILT_CHECK_SCRIPT, { moveAtFiles: 0 });
    const sources = new ThreadAnalyzer(compiler(), undefined);
    const small = new ThreadAnalyzer(compiler(), BUILT_CHECK_SCRIPT);
    try {
      await small.analyze(await projectOnDisk(), {});
      await small.moveOffThread();
      expect(small.offThread).toBe(false);
      await inMemory.analyze(new MemoryFileSystem(baseApp()), {});
      await inMemory.moveOffThread();
      expect(inMemory.offThread).toBe(false);
      await sources.analyze(await projectOnDisk(), {});
      await sources.moveOffThread();
      expect(sources.offThread).toBe(false);
    } finally {
      await inMemory.dispose();
      await sources.dispose();
      await small.dispose();
    }
  });

  it('goes back to this thread when the worker thread fails to start or stops answering', async () => {
    const fs = await projectOnDisk({ ...baseApp(), 'src/shared/text.ts': BROKEN });
    const dir = scratch();
    const broken = join(dir, 'broken.mjs');
    writeFileSync(broken, "throw new Error('no checker here');\n");
    // Answers the warm-up (the real thread script), then ends the thread at the next request before answering it.
    const dying = join(dir, 'dying.mjs');
    writeFileSync(dying, `import { parentPort } from 'node:worker_threads';\nimport ${JSON.stringify(BUILT_CHECK_SCRIPT.href)};\nlet asked = 0;\nparentPort.on('message', () => { if (++asked === 2) process.exit(3); });\n`);
    for (const script of [broken, dying]) {
      const analyzer = new ThreadAnalyzer(compiler(), pathToFileURL(script), { moveAtFiles: 0 });
      try {
        const here = await analyzer.analyze(fs, {});
        await analyzer.moveOffThread();
        expect(analyzer.offThread).toBe(script === dying);
        const after = await analyzer.analyze(fs, {});
        expect(said(after)).toEqual(said(here));
        expect(analyzer.offThread).toBe(false);
      } finally {
        await analyzer.dispose();
      }
    }
  });
});
