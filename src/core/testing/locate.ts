/** Where in a test's source a failure happened: the first stack frame in app code, mapped through the bundle's source map. */
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import type { Span } from '../diagnostics/index.ts';

export interface LoadedModule {
  /** The URL the host imported the bundle under, as it appears in stack traces. */
  url: string;
  map: TraceMap;
}

export function loadModuleMap(url: string, sourceMap: string): LoadedModule {
  return { url, map: new TraceMap(sourceMap) };
}

/** A stack frame (`at f (url:l:c)`, `at url:l:c`, `f@url:l:c`) or a bare `url:l:c`; workerd names a module by its bare name (`tests/a.test.js:l:c`). */
const FRAME = /(?:^|\(|@|at )((?:file|blob|data|https?|node):[^\s()]*?|\/[^\s():]+?|[\w.-][^\s():]*?):(\d+):(\d+)\)?\s*$/;

/** The app file and span of the first frame of `stack` (or of a single `file:line:col`) inside app code. */
export function locate(stack: string | undefined, module: LoadedModule): { file: string; span: Span } | undefined {
  if (!stack) return undefined;
  for (const line of stack.split('\n')) {
    const match = FRAME.exec(line.trim());
    if (!match || match[1] !== module.url) continue;
    const position = originalPositionFor(module.map, { line: Number(match[2]), column: Number(match[3]) - 1 });
    // esbuild names the app's files `app:<path>`; the platform's own (the test module) are `lib:`.
    if (!position.source || position.line === null || !position.source.includes('app:')) continue;
    const file = position.source.slice(position.source.indexOf('app:') + 'app:'.length);
    return { file, span: { line: position.line, column: position.column + 1 } };
  }
  return undefined;
}
