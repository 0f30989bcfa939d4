import { describe, expect, it } from 'vitest';
import { checkProjectName, copyName, PROJECT_NAME_MAX } from './store';

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
