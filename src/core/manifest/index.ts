/** The manifest: its types, its JSON Schema, and its validation with spans. */
export * from './types';
export { RESERVED_FIELD_NAMES } from './cross-field';
export { JsonDocument, formatPath, type JsonPath } from './json-document';
export { manifestSchema } from './schema-errors';
export { checkManifest, validateManifestText, type ManifestResult } from './validate';
