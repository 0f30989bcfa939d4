/** A project as the tools see it: its zones and roots, test files, the platform's modules and library, package names and relative resolution. Loads no compiler. The folder's entry: what the rest of the code base imports of it. */
export { type HttpMethod, METHODS, parseEndpointKey } from './endpoint-key.ts';
export { APP_ROOT, assembleLibrary, ASSET_DECLARATIONS_FILE, embeddedLibrary, libFileName, type Library, MODULE_FILES, PLATFORM_MODULES_ROOT, REACT_FILES, suppliedVersion, TYPESCRIPT_LIBS } from './library.ts';
export { loadPackageFiles, type PackageCache, type PackageFiles } from './package-types.ts';
export { assetKind, DEFAULT_RENDERER, isBare, isNodeBuiltin, packageName, PLATFORM_MODULES, type Renderer, rendererOf, RENDERERS } from './packages.ts';
export { isTestFile, LESSON_ROOT, listFiles, openProject, ownerOf, type Project, type ProjectSnapshot, SHARED_ROOT, snapshotStat, TESTS_ROOT, type Zone } from './project.ts';
export { resolveRelative } from './resolve.ts';
