import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../core/manifest';
import type { GridCell } from '../../../worker/protocol/runtime';
import { columnTypes, formatBytes, formatCell, viewRows } from './format';

describe('the Data panel shows values by their field type', () => {
  const manifest = { database: { tables: { todos: { fields: { done: { type: 'boolean' }, due: { type: 'datetime' }, title: { type: 'string' } } } } } } as unknown as Manifest;

  it('knows each column\'s type from the manifest, the system timestamps and the objects table', () => {
    expect(columnTypes(manifest, 'todos')).toEqual({ createdAt: 'datetime', updatedAt: 'datetime', done: 'boolean', due: 'datetime', title: 'string' });
    expect(columnTypes(manifest, '__platform_objects')).toMatchObject({ uploadedAt: 'datetime' });
    expect(columnTypes(manifest, 'other')).toEqual({});
    expect(columnTypes(undefined, 'todos')).toEqual({});
  });

  it('formats dates, booleans, bytes and leaves the rest as stored', () => {
    expect(formatCell(1_700_000_000_000, 'datetime')).toBe('2023-11-14 22:13:20Z');
    expect(formatCell(1_700_000_000_123, 'datetime')).toBe('2023-11-14 22:13:20.123Z');
    expect(formatCell(1, 'boolean')).toBe('true');
    expect(formatCell(0, 'boolean')).toBe('false');
    expect(formatCell(2, 'boolean')).toBe('2');
    expect(formatCell('x', 'datetime')).toBe('x');
    expect(formatCell(8.64e16, 'datetime')).toBe('86400000000000000');
    expect(formatCell(1, 'number')).toBe('1');
    expect(formatCell(null)).toBe('null');
    expect(formatCell({ blob: 3, hex: 'abcdef' })).toBe('3 B (abcdef)');
    expect(formatCell({ blob: 2048, hex: 'ab'.repeat(32) })).toBe(`2.0 KiB (${'ab'.repeat(8)}…)`);
    expect([formatBytes(0), formatBytes(1536), formatBytes(5 * 1024 * 1024), formatBytes(300 * 1024)]).toEqual(['0 B', '1.5 KiB', '5.0 MiB', '300 KiB']);
  });

  it('sorts by value (stable, nulls first) and filters on the shown text', () => {
    const columns = ['title', 'done', 'createdAt'];
    const types = columnTypes(manifest, 'todos');
    const rows: GridCell[][] = [
      ['milk', 0, 3],
      ['bread', 1, 1],
      [null, 0, 2],
      ['Apples', 1, 1],
    ];
    expect(viewRows(rows, columns, types, { sort: { column: 0, descending: false } }).map((r) => r[0])).toEqual([null, 'Apples', 'bread', 'milk']);
    expect(viewRows(rows, columns, types, { sort: { column: 2, descending: true } }).map((r) => r[0])).toEqual(['milk', null, 'bread', 'Apples']);
    expect(viewRows(rows, columns, types, { filter: 'TRUE' }).map((r) => r[0])).toEqual(['bread', 'Apples']);
    expect(viewRows(rows, columns, types, { filter: '1970-01-01 00:00:00.003' }).map((r) => r[0])).toEqual(['milk']);
    expect(viewRows(rows, columns, types, { filter: '  ' })).toEqual(rows);
    expect(rows[0]).toEqual(['milk', 0, 3]);
  });
});
