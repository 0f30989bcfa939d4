/**
 * The terminal's input line: typing, Backspace, Enter, ↑/↓ through history, Ctrl-C to drop the line.
 * Pure: it turns what xterm.js reports as typed (`onData`) into what to echo and which line to run.
 */

export interface LineEffect {
  /** Text to write to the terminal (echo, erasures, a redrawn line). */
  echo: string;
  /** A line submitted with Enter (trimmed; empty lines are not submitted). */
  submit?: string;
  /** Ctrl-C: the line was dropped (or, while a command runs, the command should stop). */
  interrupt?: true;
}

const ERASE_LINE = '\x1b[2K\r';

export class LineEditor {
  #line = '';
  readonly #history: string[] = [];
  /** Where ↑/↓ are in the history; `history.length` is the line being typed. */
  #cursor = 0;
  /** The line being typed before ↑ was pressed, given back by ↓ past the newest entry. */
  #draft = '';
  readonly #prompt: string;

  constructor(prompt: string) {
    this.#prompt = prompt;
  }

  get line(): string {
    return this.#line;
  }

  get history(): readonly string[] {
    return this.#history;
  }

  /** The prompt and the current line, from the start of the row. */
  redraw(): string {
    return `${ERASE_LINE}${this.#prompt}${this.#line}`;
  }

  #show(line: string): string {
    this.#line = line;
    return this.redraw();
  }

  /** Handles one `onData` chunk (a key, an escape sequence, or pasted text). */
  input(data: string): LineEffect {
    switch (data) {
      case '\r': {
        const submitted = this.#line.trim();
        this.#line = '';
        this.#draft = '';
        if (submitted && this.#history.at(-1) !== submitted) this.#history.push(submitted);
        this.#cursor = this.#history.length;
        return submitted ? { echo: '\r\n', submit: submitted } : { echo: `\r\n${this.#prompt}` };
      }
      case '\x7f':
      case '\b':
        if (!this.#line) return { echo: '' };
        this.#line = this.#line.slice(0, -1);
        return { echo: '\b \b' };
      case '\x03':
        this.#line = '';
        this.#draft = '';
        this.#cursor = this.#history.length;
        return { echo: `^C\r\n${this.#prompt}`, interrupt: true };
      case '\x15': // Ctrl-U: clear the line.
        return { echo: this.#show('') };
      case '\x1b[A':
        if (this.#cursor === 0) return { echo: '' };
        if (this.#cursor === this.#history.length) this.#draft = this.#line;
        this.#cursor -= 1;
        return { echo: this.#show(this.#history[this.#cursor]!) };
      case '\x1b[B':
        if (this.#cursor >= this.#history.length) return { echo: '' };
        this.#cursor += 1;
        return { echo: this.#show(this.#cursor === this.#history.length ? this.#draft : this.#history[this.#cursor]!) };
      default: {
        if (data.startsWith('\x1b')) return { echo: '' }; // Other keys (←, →, Home, F-keys) are not supported.
        // Pasted text: printable characters only; a newline in it submits what came before.
        const newline = data.search(/[\r\n]/);
        const typed = (newline === -1 ? data : data.slice(0, newline)).replace(/[\x00-\x1f\x7f]/g, '');
        this.#line += typed;
        if (newline === -1) return { echo: typed };
        const submitted = this.input('\r');
        return { ...submitted, echo: typed + submitted.echo };
      }
    }
  }
}

/** Splits a command line into arguments: whitespace-separated, with '…' and "…" quoting. */
export function splitArguments(line: string): string[] {
  const args: string[] = [];
  let current: string | undefined;
  let quote: string | undefined;
  for (const char of line) {
    if (quote) {
      if (char === quote) quote = undefined;
      else current = (current ?? '') + char;
    } else if (char === '"' || char === "'") {
      quote = char;
      current ??= '';
    } else if (/\s/.test(char)) {
      if (current !== undefined) args.push(current);
      current = undefined;
    } else {
      current = (current ?? '') + char;
    }
  }
  if (current !== undefined) args.push(current);
  return args;
}
