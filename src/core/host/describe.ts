/**
 * What went wrong, in one line, from anything a stranger's code may throw: an Error's message (or its
 * name), another value as text, and a value whose conversion itself throws (a hostile `toString`) as
 * such. Every host (the browser sandbox, the workerd entries, the control plane's client) describes
 * errors with this.
 */
export function describeError(error: unknown): string {
  try {
    if (error instanceof Error) return error.message || error.name;
    return String(error);
  } catch {
    return 'an unprintable value';
  }
}
