import { describe, expect, it } from 'vitest';
import { PROJECT_DATA_FILE, PROJECT_DATA_PROTOCOL } from '../../core/share';
import { projectFromFolder } from './zip-files';

/** A dropped folder as the browser hands it over (FileSystemDirectoryEntry), over files in memory. */
function folder(name: string, files: Record<string, string>): FileSystemDirectoryEntry {
  const directory = (path: string, label: string): FileSystemDirectoryEntry => {
    const children = new Map<string, FileSystemEntry>();
    for (const [file, text] of Object.entries(files)) {
      if (!file.startsWith(path)) continue;
      const [head, ...rest] = file.slice(path.length).split('/');
      if (!head || children.has(head)) continue;
      children.set(head, rest.length ? directory(`${path}${head}/`, head) : ({ name: head, isFile: true, isDirectory: false, file: (done: (file: File) => void) => done(new File([text], head)) } as unknown as FileSystemFileEntry));
    }
    return {
      name: label,
      isFile: false,
      isDirectory: true,
      createReader: () => {
        let read = false;
        return { readEntries: (done: (entries: FileSystemEntry[]) => void) => done(read ? [] : ((read = true), [...children.values()])) };
      },
    } as unknown as FileSystemDirectoryEntry;
  };
  return directory('', name);
}

const APP = { 'app.manifest.json': '{"name":"notes"}', 'src/client/main.tsx': 'export {};' };

describe('a dropped folder', () => {
  it('opens as a project, leaving out what a project never holds', async () => {
    const opened = await projectFromFolder(folder('notes', { ...APP, 'node_modules/x/index.js': '', '.platform/state/dev/db': '' }));
    expect(opened.ok && Object.keys(opened.project.files).sort()).toEqual(['app.manifest.json', 'src/client/main.tsx']);
    expect(opened.ok && opened.skipped.sort()).toEqual(['.platform', 'node_modules']);
  });

  it('carries the data of the zip it was unzipped from, checked as a zip\'s is', async () => {
    const data = JSON.stringify({ protocol: PROJECT_DATA_PROTOCOL, objects: [] });
    const opened = await projectFromFolder(folder('notes', { ...APP, [PROJECT_DATA_FILE]: data }));
    expect(opened).toMatchObject({ ok: true, data });
    expect(opened.ok && opened.project.files[PROJECT_DATA_FILE]).toBeUndefined();
    const hostile = await projectFromFolder(folder('notes', { ...APP, [PROJECT_DATA_FILE]: '{"protocol":"platform.project-data.v0","objects":[{"key":"../x"}]}' }));
    expect(hostile).toMatchObject({ ok: false, error: { code: 'zip_data_invalid' } });
  });
});
