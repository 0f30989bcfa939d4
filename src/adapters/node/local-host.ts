/** The Node side of `platform dev`, `preview` and `state`: loopback servers, a recursive file watcher, signals, state directories. */
import { lstatSync } from 'node:fs';
import { stillRunning } from '../workerd/workerd-engine';
import { join, resolve } from 'node:path';
import { isWriteRefusal } from '../../core/fs';
import { ConfinedWriter } from './confined-writer';
import type { LocalHost } from '../../core/local';
import type { EsbuildApi } from '../../core/bundle';
import { ThreadAnalyzer } from './thread-analyzer';
import { ThreadBundler } from './thread-bundler';
import { TreeWatcher } from './tree-watcher';

/** Whether a process is running (not gone, not a zombie): workerd-engine's check, for discovery records. */
export function processAlive(pid: number): boolean {
  return Number.isInteger(pid) && pid > 0 && stillRunning(pid);
}

export function nodeLocalHost(cwd: string): LocalHost {
  // The esbuild services the bundlers use, let go of at a stop signal before anything else runs. A
  // terminal's Ctrl-C signals the whole process group, so esbuild's service process dies with this one;
  // esbuild's Node API, written to after its service died while an answer the service sent before is
  // still unread, throws out of its pipe reader ("callback is not a function"), and dev's stop writes to
  // it (its bundler's contexts are disposed). Stopped, the service is read no more and a write is refused.
  const services = new Set<EsbuildApi>();
  return {
    pid: process.pid,
    processAlive,
    now: () => performance.now(),
    // Tests set a small page to run an export through many pages.
    ...(Number(process.env.PLATFORM_STATE_PAGE_ROWS) >= 1 ? { transferRows: Math.floor(Number(process.env.PLATFORM_STATE_PAGE_ROWS)) } : {}),
    // workerd, esbuild and the engine load only when a server starts.
    listen: async (options) => (await import('./local-server')).NodeLocalServer.listen(options),
    resolve: (directory) => resolve(cwd, directory),
    bundler: (compiler) => {
      services.add(compiler.esbuild);
      return new ThreadBundler(compiler);
    },
    analyzer: (compiler) => new ThreadAnalyzer(compiler),
    watch(root, onChange) {
      try {
        return new TreeWatcher(root, onChange);
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    },
    async isLink(root, path) {
      try {
        return lstatSync(join(root, path)).isSymbolicLink();
      } catch {
        return false;
      }
    },
    stopped: () =>
      new Promise((done) => {
        const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
        const stop = (signal: NodeJS.Signals) => {
          for (const s of signals) process.off(s, stop);
          for (const service of services) void service.stop?.();
          done(signal === 'SIGINT' ? 'interrupted (Ctrl-C)' : `${signal} received`);
        };
        for (const signal of signals) process.on(signal, stop);
      }),
    async removeFile(root, path) {
      new ConfinedWriter(root).remove(path);
    },
    async resetState(root, state, recovery) {
      try {
        // One rename inside the project: neither path may be or pass through a link (.platform/ included).
        return { ok: true, copied: new ConfinedWriter(root).move(state, recovery) };
      } catch (error) {
        if (isWriteRefusal(error)) return { ok: false, code: 'DG1813', message: `${error.link ?? error.path} is a symbolic link; state is never moved through a link.` };
        return { ok: false, code: 'DG1814', message: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}
