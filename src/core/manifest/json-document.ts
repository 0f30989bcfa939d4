/** A strict JSON document with positions: syntax errors, duplicate keys, and the span of any value or key. */
import { parseTree, findNodeAtLocation, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import type { Span } from '../diagnostics/index.ts';
import { LineIndex } from '../text/index.ts';

export type JsonPath = Array<string | number>;

export interface JsonProblem {
  message: string;
  span: Span;
}

const SYNTAX_MESSAGES: Record<string, string> = {
  InvalidSymbol: 'Invalid symbol',
  InvalidNumberFormat: 'Invalid number',
  PropertyNameExpected: 'Expected a property name in double quotes',
  ValueExpected: 'Expected a value',
  ColonExpected: 'Expected ":"',
  CommaExpected: 'Expected ","',
  CloseBraceExpected: 'Expected "}"',
  CloseBracketExpected: 'Expected "]"',
  EndOfFileExpected: 'Expected the end of the file',
  InvalidCommentToken: 'Comments are not allowed in JSON',
  UnexpectedEndOfComment: 'Comments are not allowed in JSON',
  UnexpectedEndOfString: 'Unterminated string',
  UnexpectedEndOfNumber: 'Unterminated number',
  InvalidUnicode: 'Invalid unicode escape',
  InvalidEscapeCharacter: 'Invalid escape character',
  InvalidCharacter: 'Invalid character in string',
};

export class JsonDocument {
  readonly text: string;
  readonly root: Node | undefined;
  /** Syntax errors and duplicate keys; the value is unusable when there is a syntax error. */
  readonly problems: JsonProblem[] = [];
  readonly hasSyntaxErrors: boolean;
  readonly #lines: LineIndex;

  constructor(text: string) {
    this.text = text;
    this.#lines = new LineIndex(text);
    const errors: ParseError[] = [];
    this.root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const seen = new Set<number>();
    for (const error of errors) {
      const name = printParseErrorCode(error.error);
      const atEnd = error.offset >= text.length;
      // One mistake often yields several parser errors: keep the first at each offset, and drop the
      // "ends too early" echo of an error already reported.
      if (seen.has(error.offset) || (atEnd && this.problems.length > 0)) continue;
      seen.add(error.offset);
      const comma = trailingComma(text, error.offset, name);
      if (comma !== undefined) {
        this.problems.push({ message: `Trailing comma before "${text[error.offset]}"`, span: this.#lines.span(comma, 1) });
        seen.add(error.offset);
        continue;
      }
      const message = SYNTAX_MESSAGES[name] ?? name;
      this.problems.push({ message: atEnd ? `${message} (the file ends too early)` : message, span: this.#lines.span(error.offset, Math.max(1, error.length)) });
    }
    this.hasSyntaxErrors = errors.length > 0;
    // A trailing comma is reported by jsonc-parser only through the error list above; comments likewise.
    if (this.root) this.#findDuplicateKeys(this.root, []);
  }

  /** The parsed value (JSON.parse semantics); undefined when the text has syntax errors. */
  value(): unknown {
    if (this.hasSyntaxErrors) return undefined;
    return JSON.parse(this.text) as unknown;
  }

  node(path: JsonPath): Node | undefined {
    if (!this.root) return undefined;
    return path.length === 0 ? this.root : findNodeAtLocation(this.root, path);
  }

  /** The span of the value at a path; falls back to the nearest existing ancestor. */
  valueSpan(path: JsonPath): Span {
    for (let depth = path.length; depth >= 0; depth--) {
      const node = this.node(path.slice(0, depth));
      if (node) return this.#nodeSpan(node);
    }
    return { line: 1, column: 1 };
  }

  /** The span of the property name at a path (the quoted key); for array items and the root, the value. */
  keySpan(path: JsonPath): Span {
    const node = this.node(path);
    const key = node?.parent?.type === 'property' ? node.parent.children?.[0] : undefined;
    if (key) return this.#lines.span(key.offset, key.length);
    return this.valueSpan(path);
  }

  /** The keys of the object at a path, in document order. */
  keys(path: JsonPath): string[] {
    const node = this.node(path);
    if (node?.type !== 'object') return [];
    return (node.children ?? []).map((p) => String(p.children?.[0]?.value));
  }

  #nodeSpan(node: Node): Span {
    // An object or array written over several lines is pointed at by its opening character.
    const multiline = /[\r\n]/.test(this.text.slice(node.offset, node.offset + node.length));
    const length = multiline ? 1 : node.length;
    return this.#lines.span(node.offset, length);
  }

  #findDuplicateKeys(node: Node, path: JsonPath): void {
    if (node.type === 'object') {
      const seen = new Set<string>();
      for (const property of node.children ?? []) {
        const [key, value] = property.children ?? [];
        if (!key) continue;
        const name = String(key.value);
        if (seen.has(name)) {
          this.problems.push({
            message: `Duplicate property "${name}"${path.length ? ` in ${formatPath(path)}` : ''}: JSON keeps only the last one`,
            span: this.#lines.span(key.offset, key.length),
          });
        }
        seen.add(name);
        if (value) this.#findDuplicateKeys(value, [...path, name]);
      }
    } else if (node.type === 'array') {
      (node.children ?? []).forEach((child, index) => this.#findDuplicateKeys(child, [...path, index]));
    }
  }
}

/** The offset of a comma that stands right before a closing bracket at `offset`, if that is the error. */
function trailingComma(text: string, offset: number, error: string): number | undefined {
  if (error !== 'PropertyNameExpected' && error !== 'ValueExpected') return undefined;
  if (text[offset] !== '}' && text[offset] !== ']') return undefined;
  let i = offset - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  return text[i] === ',' ? i : undefined;
}

/** `database.tables.todos.fields.title` or `capabilities[2]`; the root is `the manifest`. */
export function formatPath(path: JsonPath): string {
  if (path.length === 0) return 'the manifest';
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
