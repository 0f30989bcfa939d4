/**
 * An unbounded async queue between a transport's callbacks (a MessagePort, a stream reader, a timer)
 * and a loop that takes one item at a time. A host uses it to see everything an engine says, and what
 * the host itself decides (a watchdog firing, a cancel), in the order it happened.
 */
export class Inbox<T> {
  readonly #items: T[] = [];
  #wake: (() => void) | undefined;

  push(item: T): void {
    this.#items.push(item);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async next(): Promise<T> {
    while (this.#items.length === 0) await new Promise<void>((resolve) => (this.#wake = resolve));
    return this.#items.shift()!;
  }
}
