/**
 * `platform dev`'s check thread (a worker_threads Worker, see thread-analyzer.ts): the analysis and the
 * type check of each rebuild, with a long-lived type-check session of its own, reading the project's
 * directory itself; the command's thread serves, bundles and starts the next engine meanwhile. It runs
 * only the compiler; the app's code is type-checked, never executed.
 */
import { parentPort } from 'node:worker_threads';
import { TypeCheckSession } from '../../core/analyze';
import { analysisAnswerer, type AnalyzeAnswer, type AnalyzeRequest } from '../../core/build';
import './hash';
import { nodeLibrary } from './library';
import { NodeFileSystem } from './node-file-system';

const port = parentPort;
if (!port) throw new Error('check-thread.ts runs as a worker thread.');
const library = nodeLibrary();
// As the command's own session (nodeCompiler): JSDoc parsed only where a type error needs it.
const session = new TypeCheckSession(library, { forTypeErrorsOnly: true });
// One file system per project directory, kept between requests: its texts are given again while their files are unchanged.
const systems = new Map<string, NodeFileSystem>();
const systemOf = (root: string) => systems.get(root) ?? systems.set(root, new NodeFileSystem(root)).get(root)!;
const answer = analysisAnswerer(library, session, systemOf, () => performance.now());
port.on('message', (request: AnalyzeRequest) => void answer(request, (message: AnalyzeAnswer) => port.postMessage(message)));
