import { describe, expect, it } from 'vitest';
import { DEFAULT_LAYOUT, forgetLayout, loadLayout, parseLayout, saveLayout, secondPersona } from './layout';

function memoryStorage(): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> {
  const items = new Map<string, string>();
  return { getItem: (k) => items.get(k) ?? null, setItem: (k, v) => void items.set(k, v), removeItem: (k) => void items.delete(k) };
}

describe('playground layout', () => {
  it('is forgotten with its project', () => {
    const storage = memoryStorage();
    saveLayout('p_1', { ...DEFAULT_LAYOUT, panelHeight: 400 }, storage);
    saveLayout('p_2', { ...DEFAULT_LAYOUT, panelHeight: 300 }, storage);
    forgetLayout('p_1', storage);
    expect(loadLayout('p_1', storage)).toEqual(DEFAULT_LAYOUT);
    expect(loadLayout('p_2', storage).panelHeight).toBe(300);
  });

  it('round-trips through storage, per project', () => {
    const storage = memoryStorage();
    const layout = { ...DEFAULT_LAYOUT, panel: 'terminal' as const, panelState: 'maximised' as const, panelHeight: 400, split: true, second: 'guest' as const, tree: 300, side: 'files' as const, lesson: 420, editor: 500, wrap: true, device: 'phone' as const };
    saveLayout('p1', layout, storage);
    expect(loadLayout('p1', storage)).toEqual(layout);
    expect(loadLayout('p2', storage)).toEqual(DEFAULT_LAYOUT);
  });

  it('keeps each valid field and defaults each invalid one', () => {
    expect(parseLayout({ panel: 'nope', panelState: 'collapsed', panelHeight: 0, split: 'yes', second: 'mallory', tree: 1e9, side: 'both', lesson: 10, editor: 333.4, wrap: 1, device: 'watch' })).toEqual({
      ...DEFAULT_LAYOUT,
      panelState: 'collapsed',
      editor: 333,
    });
    expect(parseLayout(null)).toEqual(DEFAULT_LAYOUT);
    expect(parseLayout([1, 2])).toEqual(DEFAULT_LAYOUT);
    expect(parseLayout({ panelHeight: Number.NaN })).toEqual(DEFAULT_LAYOUT);
    expect(parseLayout({ device: 'tablet' })).toEqual({ ...DEFAULT_LAYOUT, device: 'tablet' });
  });

  it('an entry that is not JSON restores the defaults', () => {
    const storage = memoryStorage();
    storage.setItem('platform-layout:p', '{oops');
    expect(loadLayout('p', storage)).toEqual(DEFAULT_LAYOUT);
  });

  it('split view pairs the selected persona with the chosen one, never with itself', () => {
    expect(secondPersona('alice', 'guest')).toBe('guest');
    expect(secondPersona('bob', 'bob')).toBe('alice');
    expect(secondPersona('alice', 'alice')).toBe('bob');
  });
});
