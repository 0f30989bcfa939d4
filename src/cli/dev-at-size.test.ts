/**
 * `platform dev` on a big app (issue 31, item 4): a generated 500-file app (generated-app.ts) with both
 * cores of the machine kept busy by two spinning processes, so its first type check holds the thread far
 * longer than the engine's 30 s start limit. The engine is started before the check (it boots meanwhile),
 * and its limit counts only the time the thread was free: the app serves, with no DG1603. Then a body-only
 * edit of the file a hundred others import serves too, and its diagnostics are those of a fresh check.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DevProcess } from './dev-process';
import { generateApp, WIDELY, widelyText } from './generated-app';

describe('platform dev on a 500-file app with both cores busy', () => {
  it('starts whatever its first check takes, and serves a body-only edit of a widely imported file', { timeout: 1_200_000 }, async () => {
    const app = generateApp(500);
    const root = mkdtempSync(join(tmpdir(), 'platform-dev-500-'));
    for (const [path, text] of app.files) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const spinners: ChildProcess[] = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    const dev = new DevProcess(['dev', '--json', '--port', '0'], root);
    try {
      const started = performance.now();
      const first = await dev.next((event) => event.kind === 'preview.ready' || event.kind === 'compile.diagnostic', 0, 1_000_000);
      const took = performance.now() - started;
      expect(first, `after ${Math.round(took)} ms`).toMatchObject({ kind: 'preview.ready' });
      const ready = dev.events.find((event) => event.kind === 'compile.ready')!;
      // The point of the test: the first check held the thread past the engine's 30 s limit (else it proves nothing).
      expect((ready.phases as { typecheck: number }).typecheck).toBeGreaterThan(30_000);

      const from = dev.events.length;
      writeFileSync(join(root, WIDELY), widelyText(1));
      const served = await dev.next((event) => event.kind === 'compile.ready' || event.kind === 'compile.diagnostic', from, 600_000);
      expect(served).toMatchObject({ kind: 'compile.ready', diagnostics: [] });
    } finally {
      for (const spinner of spinners) spinner.kill('SIGKILL');
      await dev.stop();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
