/** Building a project: analysis and bundles together (type-checked), artifacts, what a rebuild may keep, and analysis on another thread. The folder's entry: what the rest of the code base imports of it. */
export { artifactPath, type ArtifactRecord, blobPath, LATEST_FILE, LATEST_FORMAT, makeArtifact, verifyLatest } from './artifact.ts';
export { analyzeFor, buildProject, compileProject, type Compiler, type ProjectAnalyzer, type RemoteAnalyzeOptions } from './build.ts';
export { BundleReuse, type KeptTarget, projectFiles } from './bundle-reuse.ts';
export { FRAMEWORK_RECORD, frameworkClient, type FrameworkKind, type FrameworkRecord, FRAMEWORKS, readFrameworkRecord } from './framework.ts';
export { analysisAnswerer, type AnalyzeAnswer, type AnalyzeRequest, RemoteAnalyzer } from './remote-analyzer.ts';
export { type PreparedTests, prepareTests } from './prepare-tests.ts';
