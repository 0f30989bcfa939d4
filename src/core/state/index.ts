/** State export and import in the `platform.state-export.v0` format: database records only, through a SqlDriver. */
export {
  MAX_ROW_ID_LENGTH,
  MAX_STATE_EXPORT_BYTES,
  MAX_STATE_EXPORT_DEPTH,
  STATE_EXPORT_PROTOCOL,
  parseStateExport,
  parseStateExportText,
  stateSchemaIdentity,
  type ParsedStateExport,
  type StateExportDocument,
  type StateParseResult,
  type StateRefusalCode,
  type StateRow,
} from './document.ts';
export { exportState, type ExportOptions, type StateExportResult } from './export.ts';
export { importState, importStateText, type StateImportResult } from './import.ts';
export { EXPORT_PAGE_BYTES, EXPORT_PAGE_ROWS, EXPORT_RECORD_BYTES, exportPage, type ExportHead, type ExportPage, type ExportPageResult } from './export-pages.ts';
export { StateDocumentScanner, StateDocumentWriter, DocumentTextError, malformed, type ScannedItem } from './document-text.ts';
export { streamExport, streamImport, chunksOf, type StreamImportOptions } from './transfer.ts';
export { IMPORT_BATCH_BYTES, IMPORT_BATCH_ROWS, type ImportTarget } from './import-target.ts';
export { abortStagedImport, driverImportTarget, beginStagedImport, commitStagedImport, stageRows, type StagedImportHead } from './staged-import.ts';
