import { describe, expect, it } from 'vitest';
import { parseArguments } from './argv';
import type { OptionSpec, PositionalSpec } from './types';

const options: Record<string, OptionSpec> = {
  template: { type: 'string', description: 'template', valueName: '<id>' },
  force: { type: 'boolean', description: 'force' },
};
const positionals: PositionalSpec[] = [{ name: 'directory', required: false, description: 'dir' }];

function codes(args: string[], pos = positionals) {
  const result = parseArguments(args, options, pos);
  return result.ok ? [] : result.diagnostics.map((d) => [d.code, d.message, d.hint]);
}

describe('parseArguments', () => {
  it('reads positionals, --name value, --name=value and flags', () => {
    const result = parseArguments(['app', '--template', 'todo', '--force', '--json'], options, positionals);
    expect(result).toEqual({ ok: true, invocation: { positionals: ['app'], options: { template: 'todo', force: true, json: true } } });
    const inline = parseArguments(['--template=a=b'], options, positionals);
    expect(inline.ok && inline.invocation.options.template).toBe('a=b');
  });

  it('treats everything after -- as positionals', () => {
    const result = parseArguments(['--', '--force'], options, positionals);
    expect(result.ok && result.invocation.positionals).toEqual(['--force']);
  });

  it('refuses an unknown option with DG0002 and suggests the nearest', () => {
    expect(codes(['--templat', 'x'])).toEqual([['DG0002', 'Unknown option --templat.', 'Did you mean "--template"?']]);
    expect(codes(['-x'])[0]?.[0]).toBe('DG0002');
  });

  it('refuses a string option without its value', () => {
    expect(codes(['--template'])).toEqual([['DG0002', '--template needs a value.', 'Write --template <id>.']]);
    expect(codes(['--template', '--force'])[0]?.[1]).toBe('--template needs a value.');
  });

  it('refuses a value given to a boolean flag', () => {
    expect(codes(['--json=true'])).toEqual([['DG0002', '--json is a flag and takes no value (got "true").', 'Write --json alone.']]);
  });

  it('refuses repeated options, surplus and missing positionals', () => {
    expect(codes(['--template', 'a', '--template', 'b'])[0]?.[1]).toBe('--template is given more than once.');
    expect(codes(['a', 'b'])[0]?.[1]).toBe('Unexpected argument: "b".');
    expect(codes([], [{ name: 'code', required: true, description: 'A code.' }])).toEqual([['DG0002', 'Missing argument <code>.', 'A code.']]);
  });

  it('reports every problem at once', () => {
    expect(codes(['--nope', '--json=1', '--template'])).toHaveLength(3);
  });
});
