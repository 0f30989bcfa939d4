/** Project analysis with TypeScript: the module graphs of each zone, the server definition, the contract and the type checks. The folder's entry: what the rest of the code base imports of it. */
export { type Analysis, type AnalyzeOptions, analyzeProject } from './analyze.ts';
export type { ModuleGraph } from './graph.ts';
export type { PreparedFiles } from './prepared-files.ts';
export type { InputDescriptorJson, OperationTable } from './server-definition.ts';
export { compilerOptions, toVirtual, TypeCheckSession } from './typecheck.ts';
