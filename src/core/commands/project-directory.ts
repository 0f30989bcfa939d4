/** What commands that take a project directory share: the DG1001 that names the directory. */
import { diagnostic, type Diagnostic } from '../diagnostics';
import type { FileSystem } from '../fs';
import { MANIFEST_FILE } from '../manifest';

/** DG1001 naming the directory when it has no manifest; undefined when it has one. */
export async function missingManifest(fs: FileSystem, directory: string): Promise<Diagnostic[] | undefined> {
  if ((await fs.stat(MANIFEST_FILE)) === 'file') return undefined;
  const where = directory === '.' ? 'the current directory' : directory;
  return [diagnostic('DG1001', `No ${MANIFEST_FILE} in ${where}.`, { hint: 'Run the command in an application directory, or create one with `platform new <directory>`.' })];
}
