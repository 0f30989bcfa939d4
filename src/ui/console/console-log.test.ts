import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { CONSOLE_LIMITS, ConsoleLog, consoleLevel, locateInBundle } from './console-log';

const SOURCE = `export function render(items?: string[]) {
  if (!items) {
    throw new Error('items were never loaded');
  }
  return items.length;
}
`;

/** A minified bundle of SOURCE with its source map, named `app:src/client/main.tsx` as the platform's bundler names app files. */
async function bundle(): Promise<{ code: string; map: string }> {
  const result = await build({
    stdin: { contents: SOURCE, loader: 'ts', sourcefile: 'app:src/client/main.tsx' },
    bundle: true,
    write: false,
    minify: true,
    format: 'esm',
    sourcemap: 'external',
    outfile: '/out/app.js',
  });
  const code = result.outputFiles.find((f) => f.path.endsWith('.js'))!.text;
  const map = result.outputFiles.find((f) => f.path.endsWith('.map'))!.text;
  return { code, map };
}

describe('locateInBundle', () => {
  it('maps a frame of the minified bundle, under a blob: URL, to the app file and line', async () => {
    const { code, map } = await bundle();
    const column = code.indexOf('throw new Error') + 1;
    const stack = `Error: items were never loaded\n    at render (blob:null/0b7c7f5e-1f6a-4c43-9a55-52f0e0d2f5e1:1:${column})\n    at about:srcdoc:12:3`;
    expect(locateInBundle(stack, map, 'client')).toEqual({ file: 'src/client/main.tsx', span: { line: 3, column: 5 } });
  });

  it('maps a frame of the server bundle by the name the sandbox gives it (sourceURL platform-app/server/index.js)', async () => {
    const { code, map } = await bundle();
    const column = code.indexOf('throw new Error') + 1;
    const line = `listing failed Error: items were never loaded\n    at Module.n (platform-app/server/index.js:1:${column})`;
    expect(locateInBundle(line, map, 'server')).toEqual({ file: 'src/client/main.tsx', span: { line: 3, column: 5 } });
  });

  it("in a server stack, skips the runtime sandbox's own frames (blob: URLs) that the same position would map in the bundle", async () => {
    const { code, map } = await bundle();
    const column = code.indexOf('throw new Error') + 1;
    // A fault thrown by the runtime (ctx.db) below the handler: its first frames are the sandbox worker's.
    const frames = `at Table.update (blob:null/5a1f0e0c-0d7b-4a59-9f1e-3c2b1a0d9e8f:1:${column})\nat Module.n (platform-app/server/index.js:1:${column})`;
    expect(locateInBundle(frames, map, 'server')).toEqual({ file: 'src/client/main.tsx', span: { line: 3, column: 5 } });
    expect(locateInBundle(`at Table.update (blob:null/5a1f0e0c:1:${column})`, map, 'server')).toBeUndefined();
    // And a client stack is read by its blob: URL alone.
    expect(locateInBundle(`at n (platform-app/server/index.js:1:${column})`, map, 'client')).toBeUndefined();
  });

  it('answers nothing without a frame in the bundle, without a map, or with a map that is not one', async () => {
    const { map } = await bundle();
    expect(locateInBundle('Error: x\n    at about:srcdoc:3:4', map, 'client')).toBeUndefined();
    expect(locateInBundle('at f (blob:null/abc:1:10)', undefined, 'client')).toBeUndefined();
    expect(locateInBundle('at f (blob:null/abc:1:10)', 'not json', 'client')).toBeUndefined();
  });
});

describe('ConsoleLog', () => {
  it('keeps the newest lines within its limit, cuts long messages and tells its listeners', () => {
    const log = new ConsoleLog();
    let told = 0;
    const off = log.subscribe(() => told++);
    for (let i = 0; i < CONSOLE_LIMITS.entries + 10; i++) log.add({ source: 'client', level: 'log', message: `line ${i}` });
    expect(log.entries).toHaveLength(CONSOLE_LIMITS.entries);
    expect(log.entries[0]!.message).toBe('line 10');
    expect(told).toBe(CONSOLE_LIMITS.entries + 10);
    const long = log.add({ source: 'server', persona: 'bob', level: 'error', message: 'x'.repeat(CONSOLE_LIMITS.messageChars + 50) });
    expect(long.message).toHaveLength(CONSOLE_LIMITS.messageChars);
    expect(long.message.endsWith('…')).toBe(true);
    log.clear();
    expect(log.entries).toEqual([]);
    off();
    log.add({ source: 'test', level: 'log', message: 'after' });
    expect(told).toBe(CONSOLE_LIMITS.entries + 12);
  });

  it('takes a level the app side sent only when it is one', () => {
    expect(consoleLevel('warn')).toBe('warn');
    expect(consoleLevel('table')).toBe('log');
    expect(consoleLevel({ toString: () => 'error' })).toBe('log');
  });
});
