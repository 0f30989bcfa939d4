/**
 * The `platform.state-export.v0` document as JSON text, a piece at a time: a writer whose pieces,
 * joined, are exactly `JSON.stringify(document, null, 2) + '\n'` (what an export has always written),
 * and a scanner that reads such text in chunks of any size and gives back the head's keys and each row
 * as its own JSON text. Neither ever holds more than one row beyond the chunk being read.
 */
import type { JsonValue } from '../../modules/types.ts';
import { unusable } from './document.ts';
import type { ExportHead } from './export-pages.ts';

const ROW_INDENT = '\n      ';

/** Writes a document's text from its head and then its rows, in document order. */
export class StateDocumentWriter {
  readonly #tables: string[];
  /** Index of the table being written (its `[` written), or -1 before the first. */
  #open = -1;
  #rowsInOpen = 0;

  constructor(readonly head: ExportHead) {
    this.#tables = head.tables;
  }

  /** The text up to the first table. */
  start(): string {
    const { protocol, app, schema, database, exportedAt } = this.head;
    const text = JSON.stringify({ protocol, app, schema, database, exportedAt }, null, 2);
    return `${text.slice(0, -2)},\n  "tables": ${this.#tables.length === 0 ? '{}' : '{'}`;
  }

  /** The text of `rows` of `table`, closing the tables before it. */
  rows(table: string, rows: readonly JsonValue[]): string {
    const index = this.#tables.indexOf(table, Math.max(0, this.#open));
    if (index < 0) throw new Error(`Rows of ${table} arrive out of the document's table order.`);
    let out = this.#advance(index);
    for (const row of rows) {
      out += `${this.#rowsInOpen === 0 ? '' : ','}${ROW_INDENT}${JSON.stringify(row, null, 2).replace(/\n/g, ROW_INDENT)}`;
      this.#rowsInOpen++;
    }
    return out;
  }

  /** The text after the last row. */
  end(): string {
    if (this.#tables.length === 0) return '\n}\n';
    return `${this.#advance(this.#tables.length)}\n  }\n}\n`;
  }

  /** Closes the open table and opens (empty) every table up to `index`, which is left open. */
  #advance(index: number): string {
    let out = '';
    while (this.#open < index) {
      if (this.#open >= 0) out += this.#rowsInOpen === 0 ? ']' : '\n    ]';
      this.#open++;
      this.#rowsInOpen = 0;
      if (this.#open < this.#tables.length) out += `${this.#open === 0 ? '' : ','}\n    ${JSON.stringify(this.#tables[this.#open])}: [`;
    }
    return out;
  }
}

/** What the scanner finds, in the order the text holds it. */
export type ScannedItem =
  /** A top-level key other than "tables" (or "tables" when it is not an object), its value's JSON text. */
  | { kind: 'key'; key: string; text: string }
  /** A key of "tables" whose value is not an array, its value's JSON text. */
  | { kind: 'table-value'; table: string; text: string }
  /** A table's array begins. */
  | { kind: 'table'; table: string }
  /** One row of a table, its JSON text. */
  | { kind: 'row'; table: string; index: number; text: string };

type Where =
  | 'start' // before the top-level `{`
  | 'top-key' // top object: a key or `}`
  | 'top-colon'
  | 'top-value'
  | 'top-next' // after a top-level value: `,` or `}`
  | 'tables-key'
  | 'tables-colon'
  | 'tables-value'
  | 'tables-next'
  | 'row' // in a table's array: a row or `]`
  | 'row-next'
  | 'end';

/** Thrown for text that is not a well-formed document; the caller turns it into DG1822. */
export class DocumentTextError extends Error {}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/**
 * Reads a document's JSON text fed in chunks. Only the document's structure is scanned here (the top
 * object, "tables", each table's array); every value is handed out as its own text for JSON.parse, so
 * a malformed value is caught there. A value is held until it ends, nothing else.
 */
export class StateDocumentScanner {
  #buffer = '';
  #at = 0;
  #where: Where = 'start';
  #key = '';
  #table = '';
  #index = 0;
  #seenTables = false;
  /** A value being read: its start in the buffer, how far it was scanned, and its scanner's state. */
  #value: { start: number; scanned: number; depth: number; inString: boolean; escaped: boolean } | undefined;

  /** Feeds the next chunk; the items it completed. */
  feed(chunk: string): ScannedItem[] {
    this.#buffer = this.#buffer.slice(this.#at) + chunk;
    if (this.#value) {
      this.#value.start -= this.#at;
      this.#value.scanned -= this.#at;
    }
    this.#at = 0;
    const items: ScannedItem[] = [];
    this.#run(items);
    return items;
  }

  /** The end of the text: throws when the document is not complete. */
  finish(): void {
    this.#skipWhitespace();
    if (this.#where !== 'end' || this.#at < this.#buffer.length) throw new DocumentTextError(this.#where === 'end' ? 'Text follows the end of the document.' : 'The document is cut short.');
  }

  #skipWhitespace(): void {
    while (this.#at < this.#buffer.length && WHITESPACE.has(this.#buffer[this.#at]!)) this.#at++;
  }

  /** The next structural character, consumed; undefined when the buffer ends first. */
  #next(): string | undefined {
    this.#skipWhitespace();
    return this.#at < this.#buffer.length ? this.#buffer[this.#at++] : undefined;
  }

  /** Reads a value's extent from #at; its text, or undefined when the buffer ends inside it. */
  #readValue(): string | undefined {
    if (!this.#value) {
      this.#skipWhitespace();
      if (this.#at >= this.#buffer.length) return undefined;
      this.#value = { start: this.#at, scanned: this.#at, depth: 0, inString: false, escaped: false };
    }
    const value = this.#value;
    const text = this.#buffer;
    let i = value.scanned;
    const first = text[value.start]!;
    if (first !== '{' && first !== '[' && first !== '"') {
      // A number, true, false or null: up to the next delimiter.
      while (i < text.length && !WHITESPACE.has(text[i]!) && text[i] !== ',' && text[i] !== '}' && text[i] !== ']') i++;
      if (i >= text.length) {
        value.scanned = i;
        return undefined;
      }
      return this.#take(i);
    }
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (value.inString) {
        if (value.escaped) value.escaped = false;
        else if (c === '\\') value.escaped = true;
        else if (c === '"') {
          value.inString = false;
          if (value.depth === 0) return this.#take(i + 1);
        }
      } else if (c === '"') value.inString = true;
      else if (c === '{' || c === '[') value.depth++;
      else if (c === '}' || c === ']') {
        value.depth--;
        if (value.depth === 0) return this.#take(i + 1);
        if (value.depth < 0) throw new DocumentTextError('The document\'s brackets do not match.');
      }
    }
    value.scanned = i;
    return undefined;
  }

  #take(end: number): string {
    const text = this.#buffer.slice(this.#value!.start, end);
    this.#value = undefined;
    this.#at = end;
    return text;
  }

  /** A key (a JSON string) and nothing else. */
  #readKey(): string | undefined {
    const text = this.#readValue();
    if (text === undefined) return undefined;
    if (!text.startsWith('"')) throw new DocumentTextError('An object key is not a string.');
    return JSON.parse(text) as string;
  }

  #expect(c: string | undefined, wanted: string): boolean {
    if (c === undefined) return false;
    if (c !== wanted) throw new DocumentTextError(`Expected "${wanted}" in the document, found "${c}".`);
    return true;
  }

  #run(items: ScannedItem[]): void {
    for (;;) {
      switch (this.#where) {
        case 'start': {
          const c = this.#next();
          if (c === undefined) return;
          if (c !== '{') throw new DocumentTextError('A state export must be a JSON object.');
          this.#where = 'top-key';
          // An empty object is allowed through: its missing keys are the head check's to name.
          this.#skipWhitespace();
          if (this.#buffer[this.#at] === '}') {
            this.#at++;
            this.#where = 'end';
          }
          break;
        }
        case 'top-key': {
          const key = this.#readKey();
          if (key === undefined) return;
          this.#key = key;
          this.#where = 'top-colon';
          break;
        }
        case 'top-colon':
          if (!this.#expect(this.#next(), ':')) return;
          this.#where = 'top-value';
          break;
        case 'top-value': {
          this.#skipWhitespace();
          if (this.#at >= this.#buffer.length) return;
          if (this.#key === 'tables' && this.#buffer[this.#at] === '{' && !this.#value) {
            if (this.#seenTables) throw new DocumentTextError('The document holds "tables" twice.');
            this.#seenTables = true;
            this.#at++;
            this.#skipWhitespace();
            this.#where = 'tables-key';
            if (this.#buffer[this.#at] === '}') {
              this.#at++;
              this.#where = 'top-next';
            }
            break;
          }
          const text = this.#readValue();
          if (text === undefined) return;
          items.push({ kind: 'key', key: this.#key, text });
          this.#where = 'top-next';
          break;
        }
        case 'top-next': {
          const c = this.#next();
          if (c === undefined) return;
          if (c === '}') this.#where = 'end';
          else if (this.#expect(c, ',')) this.#where = 'top-key';
          break;
        }
        case 'tables-key': {
          const key = this.#readKey();
          if (key === undefined) return;
          this.#table = key;
          this.#where = 'tables-colon';
          break;
        }
        case 'tables-colon':
          if (!this.#expect(this.#next(), ':')) return;
          this.#where = 'tables-value';
          break;
        case 'tables-value': {
          this.#skipWhitespace();
          if (this.#at >= this.#buffer.length) return;
          if (this.#buffer[this.#at] === '[' && !this.#value) {
            this.#at++;
            items.push({ kind: 'table', table: this.#table });
            this.#index = 0;
            this.#skipWhitespace();
            this.#where = 'row';
            if (this.#buffer[this.#at] === ']') {
              this.#at++;
              this.#where = 'tables-next';
            }
            break;
          }
          const text = this.#readValue();
          if (text === undefined) return;
          items.push({ kind: 'table-value', table: this.#table, text });
          this.#where = 'tables-next';
          break;
        }
        case 'tables-next': {
          const c = this.#next();
          if (c === undefined) return;
          if (c === '}') this.#where = 'top-next';
          else if (this.#expect(c, ',')) this.#where = 'tables-key';
          break;
        }
        case 'row': {
          const text = this.#readValue();
          if (text === undefined) return;
          items.push({ kind: 'row', table: this.#table, index: this.#index++, text });
          this.#where = 'row-next';
          break;
        }
        case 'row-next': {
          const c = this.#next();
          if (c === undefined) return;
          if (c === ']') this.#where = 'tables-next';
          else if (this.#expect(c, ',')) this.#where = 'row';
          break;
        }
        case 'end':
          return;
      }
    }
  }
}

/** The DG1822 for text the scanner refused. */
export function malformed(error: unknown) {
  return unusable(`The state export is not JSON: ${error instanceof Error ? error.message : String(error)}`);
}
