import { describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { nodeTemplates } from '../../adapters/node/templates';
import { encodeShareLink, linkFilesOf, SHARE_ROUTE } from '../share';
import { quickBundle, quickLibrary, type QuickBundle } from './quick-bundle';
import { QuickPreviewHost } from './quick-preview-host';

const library = quickLibrary(nodeLibrary());
const todo = nodeTemplates().find((template) => template.id === 'todo')!.files as Record<string, string>;

/** A host whose bundles are counted: which files each bundle was made of. */
function counted(): { host: QuickPreviewHost; made: Record<string, string | Uint8Array>[] } {
  const made: Record<string, string | Uint8Array>[] = [];
  const host = new QuickPreviewHost({
    bundle: (files): Promise<QuickBundle> => {
      made.push(files);
      return quickBundle(files, library);
    },
    linkFiles: linkFilesOf,
  });
  return { host, made };
}

async function hashOf(files: Record<string, string>): Promise<string> {
  const encoded = await encodeShareLink({ files, persona: 'alice', openFile: 'src/client/main.tsx', name: 'linked' });
  if (!encoded.ok) throw new Error(encoded.error.message);
  return `${SHARE_ROUTE}${encoded.hash}`;
}

describe('the quick preview host', () => {
  it("bundles a link's files when sent the link, and answers the page's request for the same files with that bundle, each answer its own bytes", async () => {
    const { host, made } = counted();
    expect(await host.answer({ type: 'link', hash: await hashOf(todo) })).toBeUndefined();
    const first = await host.answer({ type: 'bundle', id: 1, files: { ...todo } });
    const again = await host.answer({ type: 'bundle', id: 2, files: { ...todo } });
    expect(made).toHaveLength(1);
    expect(first).toMatchObject({ type: 'bundled', id: 1 });
    expect(again).toMatchObject({ type: 'bundled', id: 2 });
    if (first?.type !== 'bundled' || again?.type !== 'bundled') throw new Error('not bundled');
    expect(Object.keys(first.files)).toContain('server/index.js');
    expect(first.files['server/index.js']).toEqual(again.files['server/index.js']);
    expect(first.files['server/index.js']!.buffer).not.toBe(again.files['server/index.js']!.buffer);
  });

  it("bundles other files than the link's, and any files when the hash is no link or does not decode", async () => {
    const { host, made } = counted();
    await host.answer({ type: 'link', hash: await hashOf(todo) });
    const edited = { ...todo, 'src/shared/todo.ts': `${todo['src/shared/todo.ts']}\nexport const edited = true;\n` };
    expect(await host.answer({ type: 'bundle', id: 1, files: edited })).toMatchObject({ type: 'bundled', id: 1 });
    expect(made).toHaveLength(2);
    for (const hash of ['#/p/some-project', '#/share/v1.not-a-link']) {
      const other = counted();
      await other.host.answer({ type: 'link', hash });
      expect(await other.host.answer({ type: 'bundle', id: 7, files: todo })).toMatchObject({ type: 'bundled', id: 7 });
      expect(other.made).toHaveLength(1);
    }
  });

  it('says why a project was declined, and a bundle that threw is declined too', async () => {
    const { host } = counted();
    const react = nodeTemplates().find((template) => template.id === 'todo-react')!.files as Record<string, string>;
    expect(await host.answer({ type: 'bundle', id: 3, files: react })).toMatchObject({ type: 'declined', id: 3, reason: expect.stringMatching(/imports "react"/) });
    const failing = new QuickPreviewHost({ bundle: () => Promise.reject(new Error('out of memory')), linkFiles: linkFilesOf });
    expect(await failing.answer({ type: 'bundle', id: 4, files: todo })).toMatchObject({ type: 'declined', id: 4, reason: 'the quick preview failed: out of memory' });
  });
});
