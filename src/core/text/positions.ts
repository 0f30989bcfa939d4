/** Offsets to 1-based line and column spans. */
import type { Span } from '../diagnostics/index.ts';

export class LineIndex {
  readonly #starts: number[] = [0];

  constructor(text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) this.#starts.push(i + 1);
      else if (c === 13 && text.charCodeAt(i + 1) !== 10) this.#starts.push(i + 1);
    }
  }

  /** The 1-based span of `length` characters starting at a 0-based offset. */
  span(offset: number, length?: number): Span {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.#starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    const span: Span = { line: low + 1, column: offset - this.#starts[low]! + 1 };
    if (length !== undefined && length > 0) span.length = length;
    return span;
  }
}
