/**
 * `platform dev`'s bundle thread (a worker_threads Worker, see thread-bundler.ts): native esbuild with
 * a long-lived Bundler that reads the project's directory itself, so a rebuild's plugin reads happen
 * here while the command's thread type-checks. It runs only the compiler; the app's code is bundled,
 * never executed.
 */
import * as esbuild from 'esbuild';
import { parentPort } from 'node:worker_threads';
import { Bundler, answerBundle, type BundleRequest } from '../../core/bundle';
import { libraryOnDisk, nodeLibrary } from './library';
import { NodeFileSystem } from './node-file-system';
import { directoryOf } from './thread-bundler';

const port = parentPort;
if (!port) throw new Error('bundle-thread.ts runs as a worker thread.');
const library = nodeLibrary();
const bundler = new Bundler(esbuild, library, { directoryOf, libraryOnDisk: () => libraryOnDisk(library) });
// One file system per project directory, kept between requests: its texts are given again while their
// files are unchanged (NodeFileSystem's stamps), so the native mode's check that esbuild read the
// analysed texts does not read and resolve every file of the project again on each rebuild.
const systems = new Map<string, NodeFileSystem>();
const systemOf = (root: string) => systems.get(root) ?? systems.set(root, new NodeFileSystem(root)).get(root)!;
port.on('message', (request: BundleRequest) => {
  void answerBundle(bundler, request, systemOf).then((answer) => port.postMessage(answer));
});
port.once('close', () => void bundler.dispose());
