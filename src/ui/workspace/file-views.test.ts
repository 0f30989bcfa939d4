import { describe, expect, it } from 'vitest';
import { forgetFileViews, loadFileViews, MAX_FILE_VIEWS, parseFileViews, saveFileViews, withFileView } from './file-views';

const view = { anchor: 10, head: 12, top: 4, topOffset: 3, left: 0 };

class MemoryStorage {
  readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}

describe('file views', () => {
  it('keep well-formed entries and drop the rest', () => {
    expect(parseFileViews({ 'a.ts': view, 'b.ts': { ...view, anchor: -1 }, 'c.ts': { ...view, left: 'x' }, 'd.ts': null, 'e.ts': { ...view, head: 1.5 } })).toEqual({ 'a.ts': view });
    for (const junk of [null, 'text', 3, [view]]) expect(parseFileViews(junk)).toEqual({});
  });

  it('round-trip through storage per project; a corrupt entry reads as none', () => {
    const storage = new MemoryStorage();
    saveFileViews('p1', { 'a.ts': view }, storage);
    expect(loadFileViews('p1', storage)).toEqual({ 'a.ts': view });
    expect(loadFileViews('p2', storage)).toEqual({});
    storage.setItem('platform-editor:p3', '{not json');
    expect(loadFileViews('p3', storage)).toEqual({});
    forgetFileViews('p1', storage);
    expect(loadFileViews('p1', storage)).toEqual({});
  });

  it('keep the most recently shown files up to the limit', () => {
    let views = {};
    for (let i = 0; i < MAX_FILE_VIEWS + 5; i++) views = withFileView(views, `f${i}.ts`, view);
    views = withFileView(views, 'f10.ts', { ...view, anchor: 1 });
    const paths = Object.keys(views);
    expect(paths).toHaveLength(MAX_FILE_VIEWS);
    expect(paths.at(-1)).toBe('f10.ts');
    expect(paths).not.toContain('f0.ts');
    expect(paths).not.toContain('f4.ts');
    expect(paths).toContain('f5.ts');
  });
});
