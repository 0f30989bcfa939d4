/** What the playground's e2e specs share: opening a template, reading and replacing the editor's text, axe-core's findings. */
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/**
 * The serious and critical violations axe finds in the page as it is now (the preview's frame apart: it
 * is the app's own page), or only within the elements `include` selects.
 */
export async function violations(page: Page, include?: string): Promise<string[]> {
  const builder = new AxeBuilder({ page }).exclude('iframe.preview-frame').exclude('iframe.preview-frame-spare');
  const results = await (include ? builder.include(include) : builder).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((node) => `${v.impact} ${v.id}: ${node.target.join(' ')} — ${node.failureSummary?.replace(/\s+/g, ' ')}`));
}

/** Opens the playground on a fresh profile and creates a project from a template. */
export async function openTemplate(page: Page, template = 'todo') {
  await page.goto('/');
  await page.locator(`[data-template="${template}"]`).click();
  await expect(page).toHaveURL(/#\/p\/p_/);
  await expect(page.getByTestId('compile-status')).toHaveText(/^Ready/, { timeout: 60_000 });
}

export const preview = (page: Page, index = 0) => page.frameLocator('iframe.preview-frame').nth(index);

/** CodeMirror links its content element to its view (`cmTile.root.view`, as EditorView.findFromDOM reads it). */
type EditorDom = { cmTile: { root: { view: { state: { doc: { toString(): string; length: number }; selection: { main: { head: number } } }; dispatch(spec: unknown): void } } } };

/** The open file's text, read from CodeMirror's own state (not the DOM's rendering of it). */
export async function editorText(page: Page): Promise<string> {
  return page.locator('.cm-content').evaluate((el) => (el as unknown as EditorDom).cmTile.root.view.state.doc.toString());
}

/** The 1-based line of the editor's cursor. */
export async function cursorLine(page: Page): Promise<number> {
  return page.locator('.cm-content').evaluate((el) => {
    const { state } = (el as unknown as EditorDom).cmTile.root.view;
    return state.doc.toString().slice(0, state.selection.main.head).split('\n').length;
  });
}

/** Replaces the open file's text through CodeMirror's own view: exactly this text, as one edit. */
export async function replaceEditorText(page: Page, text: string) {
  await page.locator('.cm-content').evaluate((el, next) => {
    const view = (el as unknown as EditorDom).cmTile.root.view;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next } });
  }, text);
}

/** Opens a file from the tree (by its name) and replaces its text; waits for the rebuild. */
export async function replaceFile(page: Page, name: string, edit: (text: string) => string) {
  await page.getByRole('treeitem', { name, exact: true }).click();
  await expect(page.getByRole('tab', { name: new RegExp(name.replace('.', '\\.')) })).toHaveAttribute('aria-selected', 'true');
  await replaceEditorText(page, edit(await editorText(page)));
}

/** The number of the build the first preview shows (0 before the first). */
export async function generationShown(page: Page): Promise<number> {
  return Number((await page.locator('.preview').first().getAttribute('data-generation')) ?? 0);
}

/** Does `change` (an edit), then waits until a newer build than before is in the preview. */
export async function afterRebuild(page: Page, change: () => Promise<void>): Promise<void> {
  const before = await generationShown(page);
  await change();
  await expect.poll(() => generationShown(page), { timeout: 60_000 }).toBeGreaterThan(before);
}

/**
 * What the playground has stored in IndexedDB for the open project (read with the raw API, as a reload
 * would find it): the project record and whether its saved database holds `text`. Tests wait on this
 * instead of on a fixed time before a reload.
 */
export async function storedProject(page: Page, text?: string): Promise<{ activeFile?: string; persona?: string; stateHolds: boolean }> {
  return page.evaluate(async (needle) => {
    const id = /#\/p\/(p_[a-z0-9]+)/.exec(location.hash)?.[1];
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('platform-playground');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const read = (key: string) =>
      new Promise<unknown>((resolve, reject) => {
        const request = db.transaction('projects').objectStore('projects').get(key);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
    try {
      const project = (await read(`project:${id}`)) as { activeFile?: string; persona?: string } | undefined;
      // The data durably held: the checkpoint (the bare file of older versions, or the chunks its record
      // names: src/ui/projects/commit-store.ts) and the journal of statements appended since.
      const record = (await read(`state:${id}`)) as Uint8Array | { gen?: string; chunks?: number; state?: Uint8Array } | undefined;
      const pieces: Uint8Array[] = [];
      if (record instanceof Uint8Array) pieces.push(record);
      else if (record?.state instanceof Uint8Array) pieces.push(record.state);
      else if (record && typeof record.gen === 'string' && typeof record.chunks === 'number')
        for (let i = 0; i < record.chunks; i++) pieces.push((await read(`state:${id}:${record.gen}:${i}`)) as Uint8Array);
      const journal = await new Promise<unknown[]>((resolve) => {
        const open = indexedDB.open('platform-playground-journal');
        open.onsuccess = () => {
          const journalDb = open.result;
          if (!journalDb.objectStoreNames.contains('entries')) return (journalDb.close(), resolve([]));
          const request = journalDb.transaction('entries').objectStore('entries').getAll(IDBKeyRange.bound([id, 0], [id, Number.MAX_SAFE_INTEGER]));
          request.onsuccess = () => (journalDb.close(), resolve(request.result));
          request.onerror = () => (journalDb.close(), resolve([]));
        };
        open.onerror = () => resolve([]);
      });
      const text = pieces.map((piece) => (piece instanceof Uint8Array ? new TextDecoder('latin1').decode(piece) : '')).join('') + JSON.stringify(journal);
      const stateHolds = !!needle && text.includes(needle);
      return { activeFile: project?.activeFile, persona: project?.persona, stateHolds };
    } finally {
      db.close();
    }
  }, text);
}
