/**
 * Editing a row in the Data panel: which fields can be edited, the text each starts as (what the
 * panel shows: dates as UTC dates, booleans as true/false), and the typed value each text stands
 * for, by the field's declared type, so a bad value is refused here with a clear message before
 * anything is sent. The runtime checks everything again (its table API, its policies).
 */
import type { Result } from '../../core/result';
import type { FieldType, Manifest } from '../../core/manifest';
import type { GridCell } from '../../../worker/protocol/runtime';
import { formatCell } from './format';

export interface EditableField {
  name: string;
  type: FieldType;
  optional: boolean;
  enum?: readonly string[];
}

/** Types written as text in the editor; `bytes` is not (it is shown, not edited). */
const EDITABLE: ReadonlySet<FieldType> = new Set(['string', 'number', 'boolean', 'datetime', 'json', 'ref']);

/** The fields of a declared table a person can edit: declared, not generated, not bytes. */
export function editableFields(manifest: Manifest | undefined, table: string): EditableField[] {
  const declared = manifest?.database?.tables[table];
  if (!declared) return [];
  return Object.entries(declared.fields)
    .filter(([, field]) => EDITABLE.has(field.type) && !field.generated)
    .map(([name, field]) => ({ name, type: field.type, optional: field.optional === true, ...(field.enum ? { enum: field.enum } : {}) }));
}

/** The text a field's editor starts with: the value as the panel shows it; no value is empty text. */
export function editText(value: GridCell | undefined, type: FieldType): string {
  if (value === null || value === undefined) return '';
  if (type === 'datetime' || type === 'boolean') return formatCell(value, type);
  return typeof value === 'object' ? '' : String(value);
}

export type Parsed = Result<{ value: unknown }, { message: string }>;

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
/** A UTC date as the panel shows it (2026-11-24 05:12:09Z, with .123 when it has milliseconds), or ISO 8601 with an offset. */
const DATE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)(Z|[+-]\d{2}:\d{2})$/i;

const quoted = (text: string) => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);

/**
 * The value a field's text stands for. Empty text is no value (null) for an optional field, and
 * the empty string for a required string; elsewhere it is refused.
 */
export function parseField(field: EditableField, text: string): Parsed {
  const { name, type } = field;
  const trimmed = text.trim();
  if (trimmed === '' && type !== 'string' && type !== 'ref') {
    return field.optional ? { ok: true, value: null } : { ok: false, message: `${name} is required: write a ${type === 'json' ? 'JSON value' : type}.` };
  }
  if (text === '' && field.optional) return { ok: true, value: null };
  switch (type) {
    case 'string':
    case 'ref':
      if (field.enum && !field.enum.includes(text)) return { ok: false, message: `${name} is one of ${field.enum.map((v) => JSON.stringify(v)).join(', ')}, not ${quoted(text)}.` };
      return { ok: true, value: text };
    case 'number': {
      const value = Number(trimmed);
      if (!NUMBER.test(trimmed) || !Number.isFinite(value)) return { ok: false, message: `${name} is a number field: ${quoted(text)} is not a number.` };
      return { ok: true, value };
    }
    case 'boolean': {
      const lower = trimmed.toLowerCase();
      if (lower === 'true' || lower === 'false') return { ok: true, value: lower === 'true' };
      return { ok: false, message: `${name} is a boolean field: write true or false, not ${quoted(text)}.` };
    }
    case 'datetime': {
      const match = DATE.exec(trimmed);
      const date = match ? new Date(`${match[1]}T${match[2]}${match[3]!.toUpperCase()}`) : undefined;
      if (!date || Number.isNaN(date.getTime())) return { ok: false, message: `${name} is a datetime field: write a UTC date as the panel shows it (2026-01-31 09:30:00Z), not ${quoted(text)}.` };
      return { ok: true, value: date };
    }
    case 'json':
      try {
        return { ok: true, value: JSON.parse(trimmed) as unknown };
      } catch (error) {
        return { ok: false, message: `${name} is a json field: ${quoted(text)} is not JSON (${error instanceof Error ? error.message : String(error)}).` };
      }
    default:
      return { ok: false, message: `${name} (${String(type)}) is not edited here.` };
  }
}

/**
 * The patch an edit makes: each field whose text changed from what it started as, typed. The first
 * field refused stops it, named, so nothing is sent.
 */
export function patchOf(fields: readonly EditableField[], start: Record<string, string>, edited: Record<string, string>): { ok: true; patch: Record<string, unknown> } | { ok: false; field: string; message: string } {
  const patch: Record<string, unknown> = {};
  for (const field of fields) {
    const text = edited[field.name];
    if (text === undefined || text === start[field.name]) continue;
    const parsed = parseField(field, text);
    if (!parsed.ok) return { ok: false, field: field.name, message: parsed.message };
    patch[field.name] = parsed.value;
  }
  return { ok: true, patch };
}
