/** The manifest: its types, its JSON Schema, and its validation with spans. */
export * from './types.ts';
export { RESERVED_FIELD_NAMES } from './cross-field.ts';
export { JsonDocument, formatPath, type JsonPath } from './json-document.ts';
export { manifestSchema } from './schema-errors.ts';
export { checkManifest, validateManifestText, type ManifestResult } from './validate.ts';
