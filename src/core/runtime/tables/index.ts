/** The table API (`ctx.db.table(name)`) over an injected SqlDriver, and the schema it runs on. */
export { Database, cascadeTargets, type DatabaseOptions, type TablePolicyContext } from './database';
export { createSchema, schemaStatements, tableOrder, indexName, orderIndexName, PLATFORM_PREFIX, type DatabaseDeclaration } from './schema';
export {
  Table,
  tableHandle,
  tableModel,
  isWritableHandle,
  type FindOptions,
  type Page,
  type PageOptions,
  type ReadOnlyTableHandle,
  type TableHandle,
  type TableModel,
  type TableRow,
  type WhereRecord,
  type WritableTableHandle,
} from './table';
export { decodeRow, decodeValue, encodeValue, jsonProblem } from './values';
