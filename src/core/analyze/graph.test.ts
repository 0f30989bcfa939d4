/** The module graph parses, for a project analysed again through the same file system, only the files whose text changed. */
import { describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { MemoryFileSystem } from '../fs';
import { baseApp, SERVER } from './__fixtures__/base-app';
import { analyzeProject } from './analyze';

const library = nodeLibrary();

describe('buildModuleGraph: parsed trees', () => {
  it('keeps the tree of a file whose text did not change, parses an edited file again, and shares nothing between file systems', async () => {
    const fs = new MemoryFileSystem(baseApp());
    const first = (await analyzeProject(fs, { library, typecheck: false })).graph!;
    await fs.writeFile('src/server/index.ts', SERVER.replace("'todos.list'", "'todos.all'"));
    const second = await analyzeProject(fs, { library, typecheck: false });
    const graph = second.graph!;
    expect(graph.sources.get('src/client/main.tsx')).toBe(first.sources.get('src/client/main.tsx'));
    expect(graph.sources.get('src/shared/text.ts')).toBe(first.sources.get('src/shared/text.ts'));
    expect(graph.sources.get('src/server/index.ts')).not.toBe(first.sources.get('src/server/index.ts'));
    // What the edited file says is read from its new tree.
    expect(second.operations!.queries.map((q) => q.name)).toEqual(['todos.all']);
    const other = (await analyzeProject(new MemoryFileSystem(baseApp()), { library, typecheck: false })).graph!;
    expect(other.sources.get('src/client/main.tsx')).not.toBe(first.sources.get('src/client/main.tsx'));
  });
});
