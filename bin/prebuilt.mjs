// Which entry `platform` runs: the prebuilt CLI (build/cli/, see scripts/build-cli.ts) while none of the
// sources it was built from (build/cli/inputs.json) is newer than the build, else none (the sources);
// and the start-up snapshot the prebuilt CLI can start from.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Checkout-relative: the start-up snapshot, the record of what it is (read by bin/platform, a shell
 * script, too: shell variable assignments), and the script a process started from it runs.
 */
export const SNAPSHOT_BLOB = 'build/cli/startup.blob';
export const SNAPSHOT_INFO = 'build/cli/startup.env';
export const SNAPSHOT_LAUNCHER = 'build/cli/launch.cjs';

/** The prebuilt entry's URL under the checkout `root` (a URL ending in /), or undefined when it is missing or stale. */
export function prebuiltEntry(root) {
  try {
    const { builtAt, inputs } = JSON.parse(readFileSync(new URL('build/cli/inputs.json', root), 'utf8'));
    for (const input of inputs) if (statSync(new URL(input, root)).mtimeMs > builtAt) return undefined;
    return new URL('build/cli/main.js', root);
  } catch {
    return undefined;
  }
}

/** The glibc tunable that puts malloc's memory on transparent huge pages (glibc 2.35 and later). */
const HUGE_PAGES_TUNABLE = 'glibc.malloc.hugetlb=1';

/**
 * The environment of a process started from the start-up snapshot: `env` with glibc's malloc asked to use
 * transparent huge pages (GLIBC_TUNABLES, HUGE_PAGES_TUNABLE), unless `env` sets that tunable itself.
 * Node reads the blob (about 60 MB) into memory it allocates with malloc, and the process then touched it
 * 4 KiB page by page: a `platform check` of the todo template from the snapshot took 76,000 page faults,
 * 43,000 with the tunable, and 1.65-2.02 s against 2.02-2.47 s (five runs each, in turns, idle 2-core
 * machine, 2026-12-03). An older glibc ignores a tunable it does not know; other C libraries and systems
 * ignore the variable. bin/platform, a shell script, sets the same for the processes it starts.
 */
export function snapshotEnv(env) {
  const tunables = env.GLIBC_TUNABLES ?? '';
  if (/(^|:)glibc\.malloc\.hugetlb=/.test(tunables)) return env;
  return { ...env, GLIBC_TUNABLES: tunables ? `${tunables}:${HUGE_PAGES_TUNABLE}` : HUGE_PAGES_TUNABLE };
}

/** The Node a snapshot blob belongs to: a blob starts only in the Node that built it. */
export function snapshotTag() {
  return `${process.version} ${process.platform} ${process.arch}`;
}

/**
 * The record of a snapshot blob of `bytes` built by this Node with V8 options `flags`: its size, the
 * Node's tag and the size of its executable (what bin/platform, a shell script, can compare without
 * starting Node), and the options a process must start with to use it.
 */
export function snapshotInfo(bytes, flags = []) {
  return [
    '# The CLI\'s start-up snapshot (scripts/build-cli.ts), read by bin/platform and bin/prebuilt.mjs.',
    `SNAPSHOT_BYTES=${bytes}`,
    `SNAPSHOT_NODE_TAG='${snapshotTag()}'`,
    `SNAPSHOT_NODE_BYTES=${statSync(process.execPath).size}`,
    `SNAPSHOT_V8_FLAGS='${flags.join(' ')}'`,
    '',
  ].join('\n');
}

/** The values of a snapshot record (`NAME=value` lines, values optionally in single quotes). */
function readSnapshotInfo(text) {
  const values = new Map();
  for (const [, name, quoted, plain] of text.matchAll(/^(\w+)=(?:'([^']*)'|(\S*))$/gm)) values.set(name, quoted ?? plain);
  return values;
}

/**
 * The arguments that start a process from the start-up snapshot (before the command's own), or undefined
 * where it cannot serve: not built, not whole (its size is not the one recorded), built by another Node, or V8
 * given options of its own through NODE_OPTIONS (a snapshot is refused by a V8 whose flags differ). Call it
 * only with a current prebuiltEntry.
 */
export function snapshotArgs(root) {
  try {
    if (process.env.NODE_OPTIONS) return undefined;
    const info = readSnapshotInfo(readFileSync(new URL(SNAPSHOT_INFO, root), 'utf8'));
    const blob = new URL(SNAPSHOT_BLOB, root);
    if (info.get('SNAPSHOT_NODE_TAG') !== snapshotTag() || statSync(blob).size !== Number(info.get('SNAPSHOT_BYTES'))) return undefined;
    const flags = (info.get('SNAPSHOT_V8_FLAGS') ?? '').split(' ').filter(Boolean);
    return [...flags, '--snapshot-blob', fileURLToPath(blob), fileURLToPath(new URL(SNAPSHOT_LAUNCHER, root))];
  } catch {
    return undefined;
  }
}
