/** What commands that take a project directory share: the DG1001 that names the directory. */
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import type { FileSystem } from '../fs/index.ts';
import { MANIFEST_FILE } from '../manifest/index.ts';
import { readFrameworkPackage } from './init.ts';

/** DG1001 naming the directory when it has no manifest (DG3208 when it is a framework project init has not made an app); undefined when it has one. */
export async function missingManifest(fs: FileSystem, directory: string): Promise<Diagnostic[] | undefined> {
  if ((await fs.stat(MANIFEST_FILE)) === 'file') return undefined;
  const where = directory === '.' ? 'the current directory' : directory;
  const framework = await readFrameworkPackage(fs, directory);
  if (framework.ok) {
    return [diagnostic('DG3208', `${where} is a ${framework.value.kind} project without the platform's application contract (${MANIFEST_FILE} and a server definition).`, { hint: `Run \`platform init ${directory}\` to add them; it also builds the ${framework.value.kind} app as the client.` })];
  }
  return [diagnostic('DG1001', `No ${MANIFEST_FILE} in ${where}.`, { hint: 'Run the command in an application directory, or create one with `platform new <directory>`.' })];
}
