/** The prebuilt entry's URL under the checkout `root` (a URL ending in /), or undefined when it is missing or stale. */
export function prebuiltEntry(root: URL): URL | undefined;
/** Checkout-relative: the start-up snapshot, the record of what it is (shell variable assignments), and the script a process started from it runs. */
export const SNAPSHOT_BLOB: string;
export const SNAPSHOT_INFO: string;
export const SNAPSHOT_LAUNCHER: string;
/** The Node a snapshot blob belongs to: a blob starts only in the Node that built it. */
export function snapshotTag(): string;
/** The record (SNAPSHOT_INFO's text) of a snapshot blob of `bytes` built by this Node with V8 options `flags`. */
export function snapshotInfo(bytes: number, flags?: readonly string[]): string;
/** The arguments that start a process from the start-up snapshot (before the command's own), or undefined where it cannot serve. */
export function snapshotArgs(root: URL): string[] | undefined;
/** `env` with glibc's malloc asked to use transparent huge pages (GLIBC_TUNABLES), unless `env` sets that tunable itself: the environment of a process started from the start-up snapshot. */
export function snapshotEnv<T extends Record<string, string | undefined>>(env: T): T & { GLIBC_TUNABLES?: string };
