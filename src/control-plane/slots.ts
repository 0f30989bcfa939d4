/**
 * At most `size` tasks at once; the others wait their turn, in order. The control plane reads deploy
 * bodies (up to 64 MiB each, several times that once parsed) through this, so memory is bounded by the
 * slots, not by how many deploys arrive at once: a waiting deploy's body stays unread in its socket
 * (its sender is held back by TCP).
 */
export class Slots {
  readonly #size: number;
  #busy = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#size = size;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#busy >= this.#size) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#busy++;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      // The slot passes straight to the next task, so none can slip in between.
      if (next) next();
      else this.#busy--;
    }
  }
}
