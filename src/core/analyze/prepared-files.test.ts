/**
 * A session given library files parsed and bound by another (what the CLI's start-up snapshot holds) uses
 * those very source files, and finds exactly what a session that parses everything itself finds; a prepared
 * file whose text is not the library's is never used.
 */
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { prepareLibraryFiles } from '../../adapters/node/prepare-library';
import { nodeTemplates } from '../../adapters/node/templates';
import { baseApp, CLIENT } from './__fixtures__/base-app';
import { MemoryFileSystem } from '../fs';
import { compileProject } from '../build';
import type { Library } from '../project';
import { TypeCheckSession } from './typecheck';

const library = nodeLibrary();

/** What the CLI's start-up snapshot holds. */
const prepared = await prepareLibraryFiles(library);

function withTypeErrors(): Record<string, string> {
  const files = baseApp();
  files['src/client/main.tsx'] = `${CLIENT}\nconst wrong: string = [1, 2].map((n) => n * 2);\nconst el: HTMLInputElement = document.createElement('div');\nvoid wrong; void el;\n`;
  return files;
}

describe('library files prepared by another session', () => {
  it('holds the TypeScript libs, the platform modules and both renderers’ types, bound', () => {
    for (const path of ['/lib.es5.d.ts', '/lib.dom.d.ts', '/node_modules/platform/server.ts', '/node_modules/preact/src/jsx.d.ts', '/node_modules/@types/react/index.d.ts']) {
      expect((prepared.get(path) as { locals?: unknown } | undefined)?.locals, path).toBeDefined();
    }
  });

  it('are the source files of the new session’s program, and it finds the same errors', async () => {
    const session = new TypeCheckSession(library, { forTypeErrorsOnly: true, prepared });
    const reused = await compileProject(new MemoryFileSystem(withTypeErrors()), { esbuild, library, typecheck: session });
    const program = session.service.getProgram()!;
    expect(program.getSourceFile('/lib.dom.d.ts')).toBe(prepared.get('/lib.dom.d.ts'));
    expect(program.getSourceFile('/node_modules/preact/src/jsx.d.ts')).toBe(prepared.get('/node_modules/preact/src/jsx.d.ts'));

    const fresh = await compileProject(new MemoryFileSystem(withTypeErrors()), { esbuild, library, typecheck: new TypeCheckSession(library, { forTypeErrorsOnly: true }) });
    expect(fresh.diagnostics.filter((d) => d.code === 'DG1205')).toHaveLength(2);
    expect(reused.diagnostics).toEqual(fresh.diagnostics);
  });

  for (const template of nodeTemplates()) {
    it(`build templates/${template.id} to the same artifact as a session of its own`, async () => {
      const files = Object.fromEntries(Object.entries(template.files).filter((e): e is [string, string] => typeof e[1] === 'string'));
      const reused = await compileProject(new MemoryFileSystem(files), { esbuild, library, typecheck: new TypeCheckSession(library, { forTypeErrorsOnly: true, prepared }) });
      const fresh = await compileProject(new MemoryFileSystem(files), { esbuild, library, typecheck: new TypeCheckSession(library, { forTypeErrorsOnly: true }) });
      expect(reused.diagnostics).toEqual([]);
      expect(reused.id).toBe(fresh.id);
    });
  }

  it('are not used where the library’s text differs (a lib changed since they were made)', async () => {
    const files = new Map(library.files);
    const dom = files.get('/lib.dom.d.ts')!;
    files.set('/lib.dom.d.ts', `${dom}\ninterface HTMLElement { preparedFilesMarker: 42 }\n`);
    const changed: Library = { ...library, files };
    const session = new TypeCheckSession(changed, { forTypeErrorsOnly: true, prepared });
    const app = baseApp();
    app['src/client/main.tsx'] = `${CLIENT}\nconst marker: 42 = document.body.preparedFilesMarker;\nvoid marker;\n`;
    const outcome = await compileProject(new MemoryFileSystem(app), { esbuild, library: changed, typecheck: session });
    expect(outcome.diagnostics).toEqual([]);
    const program = session.service.getProgram()!;
    expect(program.getSourceFile('/lib.dom.d.ts')).not.toBe(prepared.get('/lib.dom.d.ts'));
    expect(program.getSourceFile('/lib.es5.d.ts')).toBe(prepared.get('/lib.es5.d.ts'));
  });

  it('are not used by a session whose parse options differ (one that parses all JSDoc, as the playground’s)', async () => {
    const session = new TypeCheckSession(library, { prepared });
    await compileProject(new MemoryFileSystem(baseApp()), { esbuild, library, typecheck: session });
    expect(session.service.getProgram()!.getSourceFile('/lib.dom.d.ts')).not.toBe(prepared.get('/lib.dom.d.ts'));
  });
});
