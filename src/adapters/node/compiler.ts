/** The compiler in Node: native esbuild, the Library from this checkout, and a type-check session. */
import * as esbuild from 'esbuild';
import type { Compiler } from '../../core/build/build';
import { TypeCheckSession } from '../../core/build/typecheck';
import { nodeLibrary } from './library';
import { startupSnapshot } from './startup-snapshot';

export function nodeCompiler(): Compiler {
  const library = nodeLibrary();
  // Started from the CLI's snapshot: the library's files are parsed and bound already.
  const prepared = startupSnapshot()?.prepared;
  return { esbuild, library, typecheck: new TypeCheckSession(library, { forTypeErrorsOnly: true, prepared }) };
}
