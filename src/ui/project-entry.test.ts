import { describe, expect, it } from 'vitest';
import { projectEntry } from './project-entry';
import { DEFAULT_LAYOUT, forgetLayout, loadLayout, saveLayout } from './playground/layout';
import { forgetFileViews, loadFileViews, saveFileViews } from './workspace/file-views';
import { forgetProgress, loadProgress, saveProgress } from './lesson/progress-store';

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, String(value)),
  };
}

describe('a per-project entry in the page storage', () => {
  it('keeps a value per project under its prefix, and forgets it', () => {
    const storage = memoryStorage();
    const entry = projectEntry('kind', (kept) => (typeof kept === 'number' ? kept : 0), () => -1);
    entry.save('p1', 7, storage);
    expect(storage.getItem('kind:p1')).toBe('7');
    expect(entry.load('p1', storage)).toBe(7);
    expect(entry.load('p2', storage)).toBe(0);
    entry.forget('p1', storage);
    expect(entry.load('p1', storage)).toBe(0);
  });

  it('gives the fallback for a record that is not JSON or that its parse refuses', () => {
    const storage = memoryStorage();
    storage.setItem('kind:p1', '{not json');
    storage.setItem('kind:p2', '"text"');
    const entry = projectEntry('kind', (kept) => {
      if (typeof kept !== 'number') throw new Error('not a number');
      return kept;
    }, () => -1);
    expect(entry.load('p1', storage)).toBe(-1);
    expect(entry.load('p2', storage)).toBe(-1);
  });

  it('never throws where the storage is refused, the read of localStorage included (a frame on another site; Node has none)', () => {
    const refused = { getItem: () => { throw new DOMException('denied', 'SecurityError'); }, setItem: () => { throw new DOMException('denied', 'SecurityError'); }, removeItem: () => { throw new DOMException('denied', 'SecurityError'); } };
    // The layout, the file views and a lesson's progress, with the page's storage (none here) and a refusing one.
    expect(loadLayout('p')).toEqual(DEFAULT_LAYOUT);
    expect(() => saveLayout('p', DEFAULT_LAYOUT)).not.toThrow();
    expect(() => forgetLayout('p')).not.toThrow();
    expect(loadFileViews('p')).toEqual({});
    expect(() => saveFileViews('p', {})).not.toThrow();
    expect(() => forgetFileViews('p')).not.toThrow();
    expect(loadProgress('p')).toBeUndefined();
    expect(() => saveProgress('p', { step: 0, done: [], entered: [] } as never)).not.toThrow();
    expect(() => forgetProgress('p')).not.toThrow();
    expect(loadLayout('p', refused)).toEqual(DEFAULT_LAYOUT);
    expect(() => saveLayout('p', DEFAULT_LAYOUT, refused)).not.toThrow();
    expect(() => forgetFileViews('p', refused)).not.toThrow();
  });
});
