/** The Node side of `platform dev`, `preview` and `state`: loopback servers, a recursive file watcher, signals, state directories. */
import { cpSync, existsSync, lstatSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { stillRunning } from '../workerd/workerd-engine';
import { join, relative, resolve, sep } from 'node:path';
import type { LocalHost } from '../../core/local/host';
import { ThreadBundler } from './thread-bundler';
import { TreeWatcher } from './tree-watcher';

/** Whether a process is running (not gone, not a zombie): workerd-engine's check, for discovery records. */
export function processAlive(pid: number): boolean {
  return Number.isInteger(pid) && pid > 0 && stillRunning(pid);
}

/** Whether `path` is inside `root` once links are resolved (the deepest existing part of it). */
function staysInside(root: string, path: string): boolean {
  const realRoot = realpathSync(root);
  let probe = path;
  while (!existsSync(probe) && probe !== resolve(probe, '..')) probe = resolve(probe, '..');
  const real = realpathSync(probe);
  return real === realRoot || real.startsWith(realRoot + sep);
}

export function nodeLocalHost(cwd: string): LocalHost {
  return {
    pid: process.pid,
    processAlive,
    now: () => performance.now(),
    // workerd, esbuild and the engine load only when a server starts.
    listen: async (options) => (await import('./local-server')).NodeLocalServer.listen(options),
    resolve: (directory) => resolve(cwd, directory),
    bundler: (compiler) => new ThreadBundler(compiler),
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
          done(signal === 'SIGINT' ? 'interrupted (Ctrl-C)' : `${signal} received`);
        };
        for (const signal of signals) process.on(signal, stop);
      }),
    async removeFile(root, path) {
      rmSync(join(root, path), { force: true });
    },
    async resetState(root, state, recovery) {
      const container = join(root, '.platform');
      const from = join(root, state);
      const to = join(root, recovery);
      try {
        // Neither the state nor the recovery copy may lead out of .platform/ through a link.
        for (const path of [from, to]) {
          if (existsSync(container) && !staysInside(container, path)) return { ok: false, code: 'DG1813', message: `${relative(root, path)} leads out of .platform/ through a link.` };
          if (existsSync(path) && lstatSync(path).isSymbolicLink()) return { ok: false, code: 'DG1813', message: `${relative(root, path)} is a link.` };
        }
        if (!existsSync(from)) return { ok: true, copied: false };
        mkdirSync(to, { recursive: true });
        cpSync(from, to, { recursive: true, verbatimSymlinks: true });
        rmSync(from, { recursive: true, force: true });
        return { ok: true, copied: true };
      } catch (error) {
        return { ok: false, code: 'DG1814', message: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}
