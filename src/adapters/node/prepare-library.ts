/**
 * The library's files parsed and bound, as a type check of each template leaves them: what the CLI's
 * start-up snapshot keeps (src/cli/snapshot.ts) for the type-check sessions of the processes started from it.
 * Analyzing the templates (rather than parsing the files alone) also runs TypeScript's checker and
 * declaration emitter, so the snapshot holds them compiled.
 */
import type ts from 'typescript';
import { analyzeProject, TypeCheckSession } from '../../core/analyze';
import type { Library } from '../../core/project';
import { MemoryFileSystem } from '../../core/fs';
import { nodeLibrary } from './library';
import { nodeTemplates } from './templates';

export async function prepareLibraryFiles(library: Library = nodeLibrary()): Promise<Map<string, ts.SourceFile>> {
  const prepared = new Map<string, ts.SourceFile>();
  for (const template of nodeTemplates()) {
    const session = new TypeCheckSession(library, { forTypeErrorsOnly: true });
    await analyzeProject(new MemoryFileSystem(template.files), { library, typecheck: session });
    for (const [path, file] of session.preparedFiles()) if (!prepared.has(path)) prepared.set(path, file);
  }
  return prepared;
}
