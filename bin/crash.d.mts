/** Exit status of a crash. */
export const CRASH_STATUS: number;
/** What stderr says of a crash: one JSON DG0000 diagnostic line with --json, else one readable line (the stack only with PLATFORM_DEBUG). */
export function crashReport(error: unknown, args: readonly string[], env?: Record<string, string | undefined>): string;
/** Makes an uncaught exception or unhandled rejection of this process a DG0000 crash on stderr, exit status CRASH_STATUS. */
export function installCrashHandler(args: readonly string[]): void;
/** Tells the crash handler that an uncaught error `is` recognises is no crash from now on; any other is still DG0000. */
export function notACrash(is: (error: unknown) => boolean): void;
