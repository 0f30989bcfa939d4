/** Bundling a project with an injected esbuild: the Bundler, the preview's vendor bundle, installed packages, and bundling on another thread. The folder's entry: what the rest of the code base imports of it. */
export { Asked } from './asked.ts';
export { ALL_TARGETS, ASSET_LIMIT, type BuildTarget, type BundleOptions, bundleProject, Bundler, type BundleResult, CLIENT_BUNDLE_DEFAULT, generateIndexHtml, libraryPackageFile, libraryRelative, pluginSpecifiers, type ProjectBundler, RESERVED_PREFIXES } from './bundle.ts';
export type { EsbuildApi } from './esbuild-types.ts';
export { afterPreviewVendor, previewVendorOf } from './preview-vendor.ts';
export { answerBundle, type BundleAnswer, type BundleRequest, RemoteBundler } from './remote-bundler.ts';
