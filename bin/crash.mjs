// The CLI's one crash handler: a crash (a throw out of a command, an uncaught exception, an unhandled
// rejection, a failure before the CLI has loaded) is DG0000 on stderr, the one code that can arrive outside
// an envelope (tooling.md), and exit status 1 (docs/cli.md). Plain JavaScript, so that bin/platform.mjs
// installs it before any source or package loads; every entry (bin/platform.mjs, the start-up snapshot's
// entry and its launcher, src/cli/main.ts's own catch) reports through it.

/** Exit status of a crash. */
export const CRASH_STATUS = 1;

/** What stderr says of a crash: one JSON diagnostic line with --json, else one readable line (the stack only with PLATFORM_DEBUG). */
export function crashReport(error, args, env = process.env) {
  const message = `platform crashed before producing a result: ${error instanceof Error ? error.message : String(error)}`;
  const crash = { code: 'DG0000', severity: 'error', message };
  const line = args.includes('--json') ? `${JSON.stringify(crash)}\n` : `error DG0000: ${message}\n`;
  return error instanceof Error && error.stack && env.PLATFORM_DEBUG ? `${line}${error.stack}\n` : line;
}

/** Where the errors a process has been told are no crash are kept: one list a process, whichever copy of this module adds to it. */
const NO_CRASH = Symbol.for('platform.crash-handler.not-a-crash');

/**
 * Tells the crash handler that an uncaught error `is` recognises is no crash from now on (a stopping
 * process's: see local-host.ts). Nothing else changes: any other error is still DG0000.
 */
export function notACrash(is) {
  (globalThis[NO_CRASH] ??= []).push(is);
}

/**
 * Makes an uncaught exception or unhandled rejection of this process a DG0000 crash: reported once on
 * stderr, then the process exits with CRASH_STATUS ('exit' handlers still run: engines are ended).
 * Errors named by `notACrash` are let pass.
 */
export function installCrashHandler(args) {
  // Once a process, whichever copy of this module asks (the prebuilt CLI bundles one).
  const key = Symbol.for('platform.crash-handler');
  if (globalThis[key]) return;
  globalThis[key] = true;
  let crashed = false;
  const crash = (error) => {
    if (crashed || (globalThis[NO_CRASH] ?? []).some((is) => is(error))) return;
    crashed = true;
    try {
      process.stderr.write(crashReport(error, args));
    } finally {
      process.exit(CRASH_STATUS);
    }
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
}
