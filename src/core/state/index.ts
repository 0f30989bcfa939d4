/** State export and import in the `platform.state-export.v0` format: database records only, through a SqlDriver. */
export {
  MAX_ROW_ID_LENGTH,
  MAX_STATE_EXPORT_BYTES,
  MAX_STATE_EXPORT_DEPTH,
  MAX_STATE_EXPORT_ROWS,
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
