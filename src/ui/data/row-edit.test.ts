import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../core/manifest';
import { editableFields, editText, parseField, patchOf, type EditableField } from './row-edit';

const manifest = {
  format: 'platform.application-source.v0',
  name: 'edits',
  entrypoints: { client: 'c.tsx', server: 's.ts' },
  capabilities: ['database'],
  database: {
    tables: {
      things: {
        fields: {
          title: { type: 'string' },
          note: { type: 'string', optional: true },
          kind: { type: 'string', enum: ['a', 'b'] },
          points: { type: 'number' },
          weight: { type: 'number', optional: true },
          done: { type: 'boolean' },
          due: { type: 'datetime', optional: true },
          data: { type: 'json' },
          blob: { type: 'bytes' },
          upper: { type: 'string', generated: { expression: 'upper(title)' } },
        },
      },
    },
  },
} as Manifest;

const field = (name: string): EditableField => editableFields(manifest, 'things').find((f) => f.name === name)!;

describe('editing a row: fields and typed values', () => {
  it('edits the declared fields, not bytes or generated ones, and nothing of an undeclared table', () => {
    expect(editableFields(manifest, 'things').map((f) => f.name)).toEqual(['title', 'note', 'kind', 'points', 'weight', 'done', 'due', 'data']);
    expect(editableFields(manifest, '__platform_meta')).toEqual([]);
    expect(editableFields(undefined, 'things')).toEqual([]);
  });

  it('starts from what the panel shows: UTC dates, true/false, no value as empty text', () => {
    expect(editText(Date.UTC(2026, 10, 24, 5, 12, 9), 'datetime')).toBe('2026-11-24 05:12:09Z');
    expect(editText(1, 'boolean')).toBe('true');
    expect(editText(0, 'boolean')).toBe('false');
    expect(editText(null, 'string')).toBe('');
    expect(editText(2.5, 'number')).toBe('2.5');
    expect(editText('{"a":1}', 'json')).toBe('{"a":1}');
  });

  it('reads each type, and the panel’s own date text back to the same instant', () => {
    expect(parseField(field('points'), ' -1.5e2 ')).toEqual({ ok: true, value: -150 });
    expect(parseField(field('done'), 'TRUE')).toEqual({ ok: true, value: true });
    expect(parseField(field('done'), 'false')).toEqual({ ok: true, value: false });
    const shown = editText(Date.UTC(2026, 10, 24, 5, 12, 9, 120), 'datetime');
    expect(parseField(field('due'), shown)).toEqual({ ok: true, value: new Date(Date.UTC(2026, 10, 24, 5, 12, 9, 120)) });
    expect(parseField(field('due'), '2026-11-24T07:12:09+02:00')).toEqual({ ok: true, value: new Date(Date.UTC(2026, 10, 24, 5, 12, 9)) });
    expect(parseField(field('data'), '{"tags":["x"]}')).toEqual({ ok: true, value: { tags: ['x'] } });
    expect(parseField(field('kind'), 'b')).toEqual({ ok: true, value: 'b' });
    // Empty text: no value for an optional field, the empty string for a required string.
    expect(parseField(field('weight'), '')).toEqual({ ok: true, value: null });
    expect(parseField(field('note'), '')).toEqual({ ok: true, value: null });
    expect(parseField(field('title'), '')).toEqual({ ok: true, value: '' });
  });

  it.each([
    ['points', 'abc', 'points is a number field: "abc" is not a number.'],
    ['points', '1,5', 'points is a number field: "1,5" is not a number.'],
    ['points', 'Infinity', 'points is a number field: "Infinity" is not a number.'],
    ['points', '', 'points is required: write a number.'],
    ['done', 'yes', 'done is a boolean field: write true or false, not "yes".'],
    ['due', '24/11/2026', 'due is a datetime field: write a UTC date as the panel shows it (2026-01-31 09:30:00Z), not "24/11/2026".'],
    ['due', '2026-11-24 05:12', 'due is a datetime field: write a UTC date as the panel shows it (2026-01-31 09:30:00Z), not "2026-11-24 05:12".'],
    ['due', '2026-13-45 05:12:00Z', 'due is a datetime field: write a UTC date as the panel shows it (2026-01-31 09:30:00Z), not "2026-13-45 05:12:00Z".'],
    ['kind', 'c', 'kind is one of "a", "b", not "c".'],
  ])('%s refuses %j: %s', (name, text, message) => {
    expect(parseField(field(name), text)).toEqual({ ok: false, message });
  });

  it('a json field names the parse error', () => {
    const parsed = parseField(field('data'), '{oops');
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toMatch(/^data is a json field: "\{oops" is not JSON \(/);
  });

  it('a patch holds only the fields whose text changed; the first refused field stops it', () => {
    const fields = editableFields(manifest, 'things');
    const start = { title: 'milk', points: '1', done: 'false' };
    expect(patchOf(fields, start, { ...start, points: '2', done: 'true' })).toEqual({ ok: true, patch: { points: 2, done: true } });
    expect(patchOf(fields, start, start)).toEqual({ ok: true, patch: {} });
    expect(patchOf(fields, start, { ...start, title: 'bread', points: 'abc' })).toEqual({ ok: false, field: 'points', message: 'points is a number field: "abc" is not a number.' });
  });
});
