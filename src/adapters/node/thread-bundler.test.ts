/**
 * `platform dev`'s bundler in Node: on the command's thread until it moves to a worker thread (the
 * prebuilt bundle-thread.js, built by the tests' global setup), the same files from both, and back on
 * the command's thread when the worker thread fails.
 */
import * as esbuild from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { analyzeProject } from '../../core/analyze';
import { baseApp } from '../../core/analyze/__fixtures__/base-app';
import type { Project } from '../../core/project';
import { Bundler, type BundleResult } from '../../core/bundle';
import { MemoryFileSystem } from '../../core/fs';
import { nodeLibrary } from './library';
import { NodeFileSystem } from './node-file-system';
import { BUILT_THREAD_SCRIPT, ThreadBundler } from './thread-bundler';

const library = nodeLibrary();
const compiler = { esbuild, library };
const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'platform-thread-bundler-'));
  made.push(dir);
  return dir;
}

async function projectOnDisk(files: Record<string, string> = baseApp()): Promise<Project> {
  const root = scratch();
  const fs = new NodeFileSystem(root);
  for (const [path, text] of Object.entries(files)) await fs.writeFile(path, text);
  const analysis = await analyzeProject(fs, { library, typecheck: false });
  if (!analysis.project) throw new Error(JSON.stringify(analysis.diagnostics));
  return analysis.project;
}

function texts(result: BundleResult): Record<string, string> {
  return Object.fromEntries([...result.files].map(([path, bytes]) => [path, Buffer.from(bytes).toString('utf8')]));
}

describe('ThreadBundler', () => {
  it('bundles on this thread until it moves, then on the worker thread, with the same files', async () => {
    const project = await projectOnDisk();
    const bundler = new ThreadBundler(compiler, BUILT_THREAD_SCRIPT);
    try {
      const here = await bundler.bundle(project, ['client', 'server']);
      expect(bundler.offThread).toBe(false);
      expect(here.diagnostics).toEqual([]);
      await bundler.moveOffThread();
      expect(bundler.offThread).toBe(true);
      const there = await bundler.bundle(project, ['client', 'server']);
      expect(texts(there)).toEqual(texts(here));
      // An edit on disk reaches the thread with the next analysis (the sources it read travel with the project).
      await (project.fs as NodeFileSystem).writeFile('src/shared/text.ts', "export function clean(text: string): string {\n  return text.trim() + ' edited on disk';\n}\n");
      const analysed = (await analyzeProject(project.fs, { library, typecheck: false })).project!;
      const edited = await bundler.bundle(analysed, ['client', 'server']);
      expect(new TextDecoder().decode(edited.files.get('client/app.js'))).toContain('edited on disk');
      const reference = new Bundler(esbuild, library);
      expect(texts(edited)).toEqual(texts(await reference.bundle(analysed, ['client', 'server'])));
      await reference.dispose();
    } finally {
      await bundler.dispose();
    }
  });

  it('stays on this thread for a project it cannot hand to the thread (held in memory), or without a thread script', async () => {
    const inMemory = (await analyzeProject(new MemoryFileSystem(baseApp()), { library, typecheck: false })).project!;
    const bundler = new ThreadBundler(compiler, BUILT_THREAD_SCRIPT);
    const sources = new ThreadBundler(compiler, undefined);
    try {
      await bundler.bundle(inMemory, ['client']);
      await bundler.moveOffThread();
      expect(bundler.offThread).toBe(false);
      await sources.bundle(await projectOnDisk(), ['client']);
      await sources.moveOffThread();
      expect(sources.offThread).toBe(false);
    } finally {
      await bundler.dispose();
      await sources.dispose();
    }
  });

  it('goes back to this thread when the worker thread fails to start or stops answering', async () => {
    const project = await projectOnDisk();
    const dir = scratch();
    const broken = join(dir, 'broken.mjs');
    writeFileSync(broken, "throw new Error('no bundler here');\n");
    // Answers the warm-up (the real thread script), then ends the thread at the next request before answering it.
    const dying = join(dir, 'dying.mjs');
    writeFileSync(dying, `import { parentPort } from 'node:worker_threads';\nimport ${JSON.stringify(BUILT_THREAD_SCRIPT.href)};\nlet asked = 0;\nparentPort.on('message', () => { if (++asked === 2) process.exit(3); });\n`);
    for (const script of [broken, dying]) {
      const bundler = new ThreadBundler(compiler, pathToFileURL(script));
      try {
        const here = await bundler.bundle(project, ['client', 'server']);
        await bundler.moveOffThread();
        expect(bundler.offThread).toBe(script === dying);
        const after = await bundler.bundle(project, ['client', 'server']);
        expect(texts(after)).toEqual(texts(here));
        expect(bundler.offThread).toBe(false);
      } finally {
        await bundler.dispose();
      }
    }
  });
});
