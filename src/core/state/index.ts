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
} from './document';
export { exportState, type ExportOptions, type StateExportResult } from './export';
export { importState, importStateText, type StateImportResult } from './import';
export { EXPORT_PAGE_BYTES, EXPORT_PAGE_ROWS, EXPORT_RECORD_BYTES, exportPage, type ExportHead, type ExportPage, type ExportPageResult } from './export-pages';
export { StateDocumentScanner, StateDocumentWriter, DocumentTextError, malformed, type ScannedItem } from './document-text';
export { streamExport, streamImport, chunksOf, type StreamImportOptions } from './transfer';
export { IMPORT_BATCH_BYTES, IMPORT_BATCH_ROWS, type ImportTarget } from './import-target';
export { abortStagedImport, driverImportTarget, beginStagedImport, commitStagedImport, stageRows, type StagedImportHead } from './staged-import';
