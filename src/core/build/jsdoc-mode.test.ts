/**
 * The CLI's type-check session parses JSDoc only where a type error needs it (as tsc does; faster), the
 * playground's parses all of it (hovers show it). Both must find the same diagnostics and make the same
 * artifact, so an app built by either has one id.
 */
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { nodeTemplates } from '../../adapters/node/templates';
import { baseApp, CLIENT } from '../analyze/__fixtures__/base-app';

const CLIENT_PATH = 'src/client/main.tsx';
import { MemoryFileSystem } from '../fs';
import { compileProject } from './build';
import { TypeCheckSession } from '../analyze';

const library = nodeLibrary();
const everything = { esbuild, library, typecheck: new TypeCheckSession(library) };
const forTypeErrors = { esbuild, library, typecheck: new TypeCheckSession(library, { forTypeErrorsOnly: true }) };

function textFiles(files: Record<string, string | Uint8Array>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

async function both(files: Record<string, string>) {
  const [a, b] = [await compileProject(new MemoryFileSystem(files), everything), await compileProject(new MemoryFileSystem(files), forTypeErrors)];
  return { a, b };
}

describe('JSDoc parsed for type errors only', () => {
  for (const template of nodeTemplates()) {
    it(`builds templates/${template.id} to the same artifact id as a session that parses all JSDoc`, async () => {
      const { a, b } = await both(textFiles(template.files));
      expect(a.diagnostics).toEqual([]);
      expect(b.id).toBe(a.id);
      expect(b.diagnostics).toEqual(a.diagnostics);
    });
  }

  it('reports the same type errors, documented declarations included', async () => {
    const files = baseApp();
    files['src/shared/doc.ts'] = '/**\n * A documented helper.\n * @deprecated use another\n * @param n a number\n */\nexport function twice(n: number): number {\n  return n * 2;\n}\n';
    files[CLIENT_PATH] = `${CLIENT}\nimport { twice } from '../shared/doc';\nconst wrong: string = twice(2);\nvoid wrong;\n`;
    const { a, b } = await both(files);
    expect(a.diagnostics.length).toBeGreaterThan(0);
    expect(b.diagnostics).toEqual(a.diagnostics);
  });
});
