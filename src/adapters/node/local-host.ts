/** The Node side of `platform dev`, `preview` and `state`: loopback servers, a recursive file watcher, signals, state directories. */
import { lstatSync } from 'node:fs';
import { stillRunning } from '../workerd/workerd-engine';
import { join, resolve } from 'node:path';
import { isWriteRefusal } from '../../core/fs';
import { ConfinedWriter } from './confined-writer';
import type { LocalHost } from '../../core/local';
import { notACrash } from '../../../bin/crash.mjs';
import { ThreadAnalyzer } from './thread-analyzer';
import { ThreadBundler } from './thread-bundler';
import { TreeWatcher } from './tree-watcher';

/** Whether a process is running (not gone, not a zombie): workerd-engine's check, for discovery records. */
export function processAlive(pid: number): boolean {
  return Number.isInteger(pid) && pid > 0 && stillRunning(pid);
}

/**
 * What esbuild's Node API throws out of its pipe reader when its service process died while an answer it
 * had sent was unread, and a write to it (a stop disposing the bundler's contexts) failed first: that
 * failure settled every request as failed, so the late answer's request is gone ("callback is not a
 * function"). A terminal's Ctrl-C signals the whole process group, esbuild's process too, so a stopping
 * `platform dev` can meet it; nothing waits for that answer, so it is no crash then.
 */
function esbuildAnswerAfterClose(error: unknown): boolean {
  return error instanceof TypeError && /\bhandleIncomingPacket\b/.test(error.stack ?? '') && /[\\/]esbuild[\\/]/.test(error.stack ?? '');
}

export function nodeLocalHost(cwd: string): LocalHost {
  return {
    pid: process.pid,
    processAlive,
    now: () => performance.now(),
    // Tests set a small page to run an export through many pages.
    ...(Number(process.env.PLATFORM_STATE_PAGE_ROWS) >= 1 ? { transferRows: Math.floor(Number(process.env.PLATFORM_STATE_PAGE_ROWS)) } : {}),
    // workerd, esbuild and the engine load only when a server starts.
    listen: async (options) => (await import('./local-server')).NodeLocalServer.listen(options),
    resolve: (directory) => resolve(cwd, directory),
    bundler: (compiler) => new ThreadBundler(compiler),
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
          notACrash(esbuildAnswerAfterClose);
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
