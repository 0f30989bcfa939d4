import { describe, expect, it } from 'vitest';
import { checkProjectName, copyName, lastGoodFrom, PROJECT_NAME_MAX } from './store';

describe('project names', () => {
  it('are trimmed', () => {
    expect(checkProjectName('  Groceries \n')).toEqual({ ok: true, name: 'Groceries' });
  });

  it('refuses an empty name, blanks included', () => {
    for (const input of ['', '   ', '\t\n']) expect(checkProjectName(input)).toMatchObject({ ok: false, code: 'project_name_empty', message: 'A project needs a name: type at least one character.' });
  });

  it(`takes ${PROJECT_NAME_MAX} characters, counted as people see them, and refuses one more`, () => {
    expect(checkProjectName('x'.repeat(PROJECT_NAME_MAX))).toMatchObject({ ok: true });
    // Each emoji is one character although two UTF-16 units.
    expect(checkProjectName('🍎'.repeat(PROJECT_NAME_MAX))).toMatchObject({ ok: true });
    expect(checkProjectName('x'.repeat(PROJECT_NAME_MAX + 1))).toEqual({ ok: false, code: 'project_name_too_long', message: `A project's name is at most ${PROJECT_NAME_MAX} characters; this one has ${PROJECT_NAME_MAX + 1}.` });
  });

  it('refuses control characters inside a name', () => {
    expect(checkProjectName('two\nlines')).toMatchObject({ ok: false, code: 'project_name_invalid' });
    expect(checkProjectName('bell\u0007')).toMatchObject({ ok: false, code: 'project_name_invalid' });
  });

  it('names a copy "<name> (copy)", within the limit', () => {
    expect(copyName('Todos')).toBe('Todos (copy)');
    const long = copyName('y'.repeat(PROJECT_NAME_MAX));
    expect([...long]).toHaveLength(PROJECT_NAME_MAX);
    expect(long.endsWith('y (copy)')).toBe(true);
    expect(checkProjectName(copyName('🍎'.repeat(PROJECT_NAME_MAX)))).toMatchObject({ ok: true });
  });
});

describe('a stored last good build', () => {
  const manifest = { name: 'notes' };
  const text = (build: ReturnType<typeof lastGoodFrom>, path: string) => {
    const bytes = build?.generation.files.get(path);
    return bytes && new TextDecoder().decode(bytes);
  };

  it('kept by an older version (its bundles as texts) is read with each text at its artifact path', () => {
    const old = { generation: { manifest, serverCode: 'server', clientCode: 'client', clientCss: 'p{}', clientMap: '{"c":1}', serverMap: '{"s":1}', publicFiles: { 'robots.txt': 'allow', 'img/a.svg': '<svg/>' } }, savedAt: 5 };
    const build = lastGoodFrom(old)!;
    expect(build.savedAt).toBe(5);
    expect(build.generation.manifest).toEqual(manifest);
    expect([...build.generation.files.keys()].sort()).toEqual(['client/app.css', 'client/app.js', 'client/app.js.map', 'public/img/a.svg', 'public/robots.txt', 'server/index.js', 'server/index.js.map']);
    expect([text(build, 'server/index.js'), text(build, 'client/app.js'), text(build, 'client/app.css'), text(build, 'client/app.js.map'), text(build, 'server/index.js.map'), text(build, 'public/img/a.svg')]).toEqual(['server', 'client', 'p{}', '{"c":1}', '{"s":1}', '<svg/>']);
    const bare = lastGoodFrom({ generation: { manifest, serverCode: 's', clientCode: 'c', publicFiles: {} }, savedAt: 1 })!;
    expect([...bare.generation.files.keys()].sort()).toEqual(['client/app.js', 'server/index.js']);
  });

  it('kept by this version is read as it was stored', () => {
    const files = new Map([['server/index.js', new Uint8Array([1])], ['client/app.js', new Uint8Array([2])]]);
    expect(lastGoodFrom({ generation: { manifest, files }, savedAt: 7 })).toEqual({ generation: { manifest, files }, savedAt: 7 });
  });

  it('is no build when what is stored is not one', () => {
    for (const stored of [undefined, null, 'x', { savedAt: 1 }, { generation: { manifest }, savedAt: 1 }, { generation: { manifest, serverCode: 's' }, savedAt: 1 }, { generation: { manifest, serverCode: 's', clientCode: 'c' } }, { generation: { serverCode: 's', clientCode: 'c' }, savedAt: 1 }, { generation: { manifest, files: new Map([['server/index.js', new Uint8Array()]]) }, savedAt: 1 }]) {
      expect(lastGoodFrom(stored)).toBeUndefined();
    }
  });
});
