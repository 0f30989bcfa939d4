import { describe, expect, it } from 'vitest';
import { handlerPlaces } from './handler-place';

const URL = 'platform-app/server/index.js';

/** A bundle's text and the definition it evaluates to (as the sandbox imports it). */
async function bundle(code: string): Promise<{ code: string; definition: unknown }> {
  const module = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as { default: unknown };
  return { code, definition: module.default };
}

describe('handlerPlaces', () => {
  it("gives a handler's line and column in the bundle, 1-based, as a stack frame names them", async () => {
    const { code, definition } = await bundle(
      ['const helper = 1;', 'export default {', '  queries: {', "    'todos.remaining': { input: {}, handler: async () => {", '      while (true) {}', '    } },', '  },', '  mutations: {', "    'todos.add': { input: {}, handler: async (ctx, input) => input.title },", '  },', '};'].join('\n'),
    );
    const place = handlerPlaces(definition, code, URL);
    const lines = code.split('\n');
    // Where each handler's `async` begins.
    expect(place('query', 'todos.remaining')).toBe(`${URL}:4:${lines[3]!.indexOf('async') + 1}`);
    expect(place('mutation', 'todos.add')).toBe(`${URL}:9:${lines[8]!.indexOf('async') + 1}`);
    expect(place('query', 'todos.add')).toBeUndefined();
    expect(place('mutation', 'nothing.here')).toBeUndefined();
  });

  it('gives no place for a handler whose text occurs twice, nor runs a getter of the definition', async () => {
    const { code, definition } = await bundle(
      [
        'const same = () => { return 42; };',
        'let asked = 0;',
        'export const count = () => asked;',
        'export default {',
        "  queries: { 'a.one': { handler: () => { return 42; } }, 'a.two': { handler: () => { return 42; } },",
        "    get 'a.getter'() { asked++; return { handler: async () => 'from a getter' }; } },",
        '};',
      ].join('\n'),
    );
    const place = handlerPlaces(definition, code, URL);
    expect(place('query', 'a.one')).toBeUndefined();
    expect(place('query', 'a.getter')).toBeUndefined();
    const module = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as { count(): number };
    expect(module.count()).toBe(0);
  });
});
