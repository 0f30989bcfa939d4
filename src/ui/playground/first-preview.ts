/**
 * What waits for a project's first preview. The editor (CodeMirror), the compiler worker's start and
 * the runtime's spare sandbox each hold the main thread or a core for a while; on a two-core machine
 * they ran while the preview frame started, and the preview, what a person waits for, came after them.
 * The latch opens when the first preview is up, when it cannot come (the build failed, the client
 * crashed or stopped answering), or after a deadline, so nothing waits for it for long.
 */

/** How long after a session starts what waits for its first preview goes ahead anyway. */
export const FIRST_PREVIEW_DEADLINE_MS = 3000;

export class FirstPreview {
  /** Resolves once the latch opens. */
  readonly shown: Promise<void>;
  #resolve!: () => void;
  #opened = false;
  #deadline: ReturnType<typeof setTimeout> | undefined;

  constructor(deadlineMs = FIRST_PREVIEW_DEADLINE_MS) {
    this.shown = new Promise<void>((resolve) => (this.#resolve = resolve));
    this.#deadline = setTimeout(() => this.open(), deadlineMs);
  }

  get opened(): boolean {
    return this.#opened;
  }

  /** The first preview is up, or will not come: what waited for it goes ahead. */
  open(): void {
    if (this.#opened) return;
    this.#opened = true;
    clearTimeout(this.#deadline);
    this.#resolve();
  }

  /** The session ended: its deadline no longer runs (what waited is ended with the session). */
  dispose(): void {
    clearTimeout(this.#deadline);
  }
}
