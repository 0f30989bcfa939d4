/**
 * The `platform` CLI as a process: `--help` and `check` of the fixture app as installed (bin/platform, the
 * shell launcher npm links; the prebuilt CLI, built first from the current sources; `check` starts from its
 * start-up snapshot in one process), against the same check through the Node entry (bin/platform.mjs: a
 * process that starts the snapshot's), without the snapshot, and from the sources through tsx, in the same
 * run, and a bare `node -e 0`; and `check` of each template as installed, against that bare start: the
 * first check (no kept answer), a check again with nothing changed (answered from the answer the first
 * kept, src/cli/check-cache.ts), and a check after an edit of the server entry or of the client entry
 * (a comment line that differs every run: the kept answer no longer holds, the per-file results of the
 * files the edit cannot reach do). Those template rows go through a check server (bin/check-server.mjs),
 * warm: one that has checked before; its first check of a template is of files it has not seen (a
 * comment line of their own added to each source file). Beside them, the first check with no server
 * running (the check starts one), and the same check in a process of its own (PLATFORM_CHECK_SERVER=0).
 * The fixture app's rows are of the check itself, in a process of its own: its kept answer is removed
 * before each run. And `platform test` of each template.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { baseApp } from '../src/core/analyze/__fixtures__/base-app';
import { pathToFileURL } from 'node:url';
import { CHECK_CACHE_FILE } from '../src/cli/check-cache';
import { prebuiltEntry, snapshotArgs } from '../bin/prebuilt.mjs';
import { buildIdentity, serverPaths, socketFolder } from '../bin/check-server.mjs';
import { alive } from '../src/testing/control-plane';
import { buildCli } from '../scripts/build-cli';
import { median, time, type Row } from './stats';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/platform.mjs');
/** The command as npm installs it (package.json's bin). */
const INSTALLED = join(ROOT, 'bin/platform');
const RUNS = 9;

/** The prebuilt CLI went stale during a measurement (a source was edited): the figure is of the sources. */
function assertPrebuilt(what: string): void {
  if (!prebuiltEntry(pathToFileURL(`${ROOT}/`))) throw new Error(`A source of the CLI changed while ${what} was measured, so the sources ran instead of the prebuilt CLI; run the bench on a quiet checkout.`);
}

/** Wall time p50 of `node args…`, or of `file args…` when `file` is given; `before` runs ahead of each run, untimed. */
function wall(args: string[], env: Record<string, string> = {}, file = process.execPath, before = () => {}): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    before();
    times.push(time(() => execFileSync(file, args, { env: { ...process.env, PLATFORM_CLI_SOURCES: '', ...env } })));
  }
  if (env.PLATFORM_CLI_SOURCES !== '1') assertPrebuilt((file === process.execPath ? args.slice(1) : args).join(' '));
  return median(times);
}

/** Ends the check server of the current build in the bench's socket folder, if one runs, and waits for it to be gone. */
function stopCheckServer(env: Record<string, string>): void {
  const folder = socketFolder(env);
  if (!folder) throw new Error('The bench could not make its check server socket folder.');
  const { pid } = serverPaths(folder, buildIdentity(pathToFileURL(`${ROOT}/`)));
  if (!existsSync(pid)) return;
  const id = Number(readFileSync(pid, 'utf8'));
  try {
    process.kill(id, 'SIGKILL');
  } catch {
    // Gone already.
  }
  // Polled every 5 ms (this runs between timed runs, synchronously): gone once it no longer runs, reaped or not.
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (alive(id)) Atomics.wait(pause, 0, 0, 5);
  rmSync(pid, { force: true });
}

export async function cliRows(): Promise<Row[]> {
  await buildCli();
  if (!snapshotArgs(pathToFileURL(`${ROOT}/`))) throw new Error("The CLI's start-up snapshot was not built for this Node: the check figure would be of a start without it.");
  const work = mkdtempSync(join(tmpdir(), 'platform-bench-'));
  const copies = mkdtempSync(join(tmpdir(), 'platform-bench-templates-'));
  // The bench's check servers, apart from any the user runs; ended at the end. A server kept for the fixture's rows would answer from what it checked before.
  const servers = { XDG_RUNTIME_DIR: mkdtempSync(join(tmpdir(), 'platform-bench-run-')), CI: '' };
  const own = { PLATFORM_CHECK_SERVER: '0' };
  try {
    for (const [path, text] of Object.entries(baseApp())) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), text);
    }
    const sources = { PLATFORM_CLI_SOURCES: '1' };
    const bare = wall(['-e', '0']);
    const help = wall(['--help'], {}, INSTALLED);
    const helpSources = wall([BIN, '--help'], sources);
    // The check itself: no kept answer.
    const forget = (directory: string) => () => rmSync(join(directory, CHECK_CACHE_FILE), { force: true });
    // An edit of `file` before each run: a comment line of its own at the end (untimed).
    let edits = 0;
    const edit = (directory: string, file: string) => {
      const original = readFileSync(join(directory, file), 'utf8');
      return () => writeFileSync(join(directory, file), `${original}// edit ${++edits}\n`);
    };
    const check = wall(['check', '--json', work], own, INSTALLED, forget(work));
    const checkNodeEntry = wall([BIN, 'check', '--json', work], own, process.execPath, forget(work));
    const checkOrdinary = wall([BIN, 'check', '--json', work], { ...own, PLATFORM_CLI_SNAPSHOT: '0' }, process.execPath, forget(work));
    const checkSources = wall([BIN, 'check', '--json', work], sources, process.execPath, forget(work));
    // Each template as it ships, as installed: what a person runs (issue 31 measured todo at 20x a bare node).
    // First checks (no kept answer), then checks again with nothing changed (the first kept its answer).
    const templates = readdirSync(join(ROOT, 'templates'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    // Copies (the same files): a check keeps its answer in the project's .platform/, and tests copy the checkout's templates whole.
    // Every source file of the template with a comment line no run had before: files no server has checked.
    let unseen = 0;
    const unseenFiles = (directory: string) => () => {
      forget(directory)();
      unseen++;
      for (const file of readdirSync(join(directory, 'src'), { recursive: true, encoding: 'utf8' })) {
        if (!/\.tsx?$/.test(file)) continue;
        const path = join(directory, 'src', file);
        writeFileSync(path, `${readFileSync(path, 'utf8').replace(/\/\/ unseen \d+\n$/, '')}// unseen ${unseen}\n`);
      }
    };
    const templateChecks = templates.map((template) => {
      const directory = join(copies, template);
      cpSync(join(ROOT, 'templates', template), directory, { recursive: true, filter: (source) => !source.endsWith('/.platform') });
      const alone = wall(['check', '--json', directory], own, INSTALLED, forget(directory));
      const cold = wall(['check', '--json', directory], servers, INSTALLED, () => (stopCheckServer(servers), unseenFiles(directory)()));
      const first = wall(['check', '--json', directory], servers, INSTALLED, unseenFiles(directory));
      const again = wall(['check', '--json', directory], servers, INSTALLED);
      const serverEdit = wall(['check', '--json', directory], servers, INSTALLED, edit(directory, 'src/server/index.ts'));
      const clientEdit = wall(['check', '--json', directory], servers, INSTALLED, edit(directory, 'src/client/main.tsx'));
      return { template, alone, cold, first, again, serverEdit, clientEdit };
    });
    return [
      { name: 'baseline: `node -e 0` wall time p50', value: bare, unit: 'ms' },
      { name: '`platform --help` as installed (bin/platform), prebuilt, wall time p50 (goal < 150)', value: help, unit: 'ms' },
      { name: 'baseline: `platform --help` from the sources (tsx) p50', value: helpSources, unit: 'ms' },
      { name: '`platform check --json` of the fixture app as installed (bin/platform), from the start-up snapshot, wall time p50 (goal < 600)', value: check, unit: 'ms' },
      { name: 'the same check through the Node entry (`node bin/platform.mjs`: a second process, from the snapshot) p50', value: checkNodeEntry, unit: 'ms' },
      { name: 'baseline: the same check, prebuilt, started without the snapshot p50', value: checkOrdinary, unit: 'ms' },
      { name: 'baseline: the same check from the sources (tsx) p50', value: checkSources, unit: 'ms' },
      { name: 'CLI check / bare node start', value: check / bare, unit: 'x' },
      ...templateChecks.flatMap(({ template, alone, cold, first, again, serverEdit, clientEdit }) => [
        { name: `baseline: \`platform check --json templates/${template}\` as installed, in a process of its own (PLATFORM_CHECK_SERVER=0), no kept answer, wall time p50`, value: alone, unit: 'ms' as const },
        { name: `  the same with no check server running (this check starts one), files it has not seen, wall time p50`, value: cold, unit: 'ms' as const },
        { name: `  templates/${template} first check, no server running / bare \`node -e 0\``, value: cold / bare, unit: 'x' as const },
        { name: `  the same answered by a warm check server, files it has not seen, wall time p50`, value: first, unit: 'ms' as const },
        { name: `  templates/${template} first check / bare \`node -e 0\` (goal < 8)`, value: first / bare, unit: 'x' as const },
        { name: `  the same, checked again with nothing changed (its kept answer), wall time p50`, value: again, unit: 'ms' as const },
        { name: `  templates/${template} check again / bare \`node -e 0\` (goal < 8)`, value: again / bare, unit: 'x' as const },
        { name: `  the same, after an edit of src/server/index.ts (per-file results kept), wall time p50`, value: serverEdit, unit: 'ms' as const },
        { name: `  templates/${template} check after a server edit / bare \`node -e 0\` (goal < 8)`, value: serverEdit / bare, unit: 'x' as const },
        { name: `  the same, after an edit of src/client/main.tsx (per-file results kept), wall time p50`, value: clientEdit, unit: 'ms' as const },
        { name: `  templates/${template} check after a client edit / bare \`node -e 0\` (goal < 8)`, value: clientEdit / bare, unit: 'x' as const },
      ]),
    ];
  } finally {
    stopCheckServer(servers);
    rmSync(servers.XDG_RUNTIME_DIR, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
    rmSync(copies, { recursive: true, force: true });
  }
}

/** Wall time of `platform test` on each template, as a process (compile, workerd engines, tests), with the prebuilt CLI. */
export async function templateTestRows(templates: string[]): Promise<Row[]> {
  await buildCli();
  return templates.map((template) => {
    const start = performance.now();
    const output = execFileSync(process.execPath, [BIN, 'test', join(ROOT, 'templates', template)], { encoding: 'utf8', env: { ...process.env, PLATFORM_CLI_SOURCES: '' } });
    const counts = output.trimEnd().split('\n').at(-1);
    assertPrebuilt(`platform test templates/${template}`);
    return { name: `platform test templates/${template} (${counts}), wall time (goal < 1500)`, value: performance.now() - start, unit: 'ms' as const };
  });
}
