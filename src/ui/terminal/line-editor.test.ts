import { describe, expect, it } from 'vitest';
import { LineEditor, splitArguments } from './line-editor';

const type = (editor: LineEditor, text: string) => [...text].map((c) => editor.input(c));

describe('LineEditor', () => {
  it('echoes typing, erases with Backspace and submits the trimmed line with Enter', () => {
    const editor = new LineEditor('$ ');
    expect(type(editor, 'platform chek').map((e) => e.echo).join('')).toBe('platform chek');
    expect(editor.input('\x7f')).toEqual({ echo: '\b \b' });
    expect(editor.line).toBe('platform che');
    type(editor, 'ck  ');
    expect(editor.input('\r')).toEqual({ echo: '\r\n', submit: 'platform check' });
    expect(editor.line).toBe('');
    expect(editor.input('\x7f')).toEqual({ echo: '' });
  });

  it('does not submit an empty line, and gives a fresh prompt', () => {
    const editor = new LineEditor('$ ');
    type(editor, '   ');
    expect(editor.input('\r')).toEqual({ echo: '\r\n$ ' });
  });

  it('walks the history with ↑ and ↓, giving back the draft past the newest entry', () => {
    const editor = new LineEditor('$ ');
    for (const line of ['help', 'platform check', 'platform check']) {
      type(editor, line);
      editor.input('\r');
    }
    expect(editor.history).toEqual(['help', 'platform check']);
    type(editor, 'platform te');
    expect(editor.input('\x1b[A').echo).toBe('\x1b[2K\r$ platform check');
    expect(editor.input('\x1b[A').echo).toBe('\x1b[2K\r$ help');
    expect(editor.input('\x1b[A')).toEqual({ echo: '' });
    expect(editor.input('\x1b[B').echo).toBe('\x1b[2K\r$ platform check');
    expect(editor.input('\x1b[B').echo).toBe('\x1b[2K\r$ platform te');
    expect(editor.input('\x1b[B')).toEqual({ echo: '' });
    expect(editor.input('\x1b[A').echo).toBe('\x1b[2K\r$ platform check');
    expect(editor.input('\r').submit).toBe('platform check');
  });

  it('drops the line on Ctrl-C and says so', () => {
    const editor = new LineEditor('$ ');
    type(editor, 'platform bui');
    expect(editor.input('\x03')).toEqual({ echo: '^C\r\n$ ', interrupt: true });
    expect(editor.line).toBe('');
    expect(editor.input('\r')).toEqual({ echo: '\r\n$ ' });
  });

  it('takes pasted text, dropping control characters and submitting at a newline', () => {
    const editor = new LineEditor('$ ');
    expect(editor.input('platform\tdiagnostics DG1003\nignored')).toEqual({ echo: 'platformdiagnostics DG1003\r\n', submit: 'platformdiagnostics DG1003' });
    expect(editor.input('\x1b[D')).toEqual({ echo: '' });
    expect(editor.input('\x15').echo).toBe('\x1b[2K\r$ ');
  });
});

describe('splitArguments', () => {
  it('splits on whitespace and keeps quoted parts together', () => {
    expect(splitArguments('platform  test --only "owners see only their own todos"')).toEqual(['platform', 'test', '--only', 'owners see only their own todos']);
    expect(splitArguments("platform check 'my app'")).toEqual(['platform', 'check', 'my app']);
    expect(splitArguments('a "" b')).toEqual(['a', '', 'b']);
    expect(splitArguments('   ')).toEqual([]);
  });
});
