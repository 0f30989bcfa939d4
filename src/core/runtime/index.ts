/** The app runtime: `defineServer` apps served over a SQL driver: tables, storage, auth, errors and limits. The folder's entry: what the rest of the code base imports of it. */
export { randomId, systemClock } from './clock.ts';
export { CALL_REPORT_HEADER, type CallError, type CallReport, ConsoleCapture, consoleLevels, decodeCallReport, encodeCallReport, LOG_LIMITS, type LogLevel, type LogLine } from './console-capture.ts';
export { CursorSigner } from './cursor.ts';
export { initialiseDatabase, readStoredSchema, syncIndexes } from './database-schema.ts';
export { type JournalBatch, JournalingDriver, type JournalStatement, replayJournal } from './journaling-driver.ts';
export { DEFAULT_LIMITS, limitsOf, Meter } from './limits.ts';
export { localPlatformResponse } from './local-platform.ts';
export { type CallOutcome, deadlineExceeded, failedCall } from './outcome.ts';
export { type Auth, isPersona, PERSONA_NAMES, personaAuth, type PersonaName, personaSignedIn } from './personas.ts';
export { AppRuntime, callAnswer, errorOf, errorResponse, schemaIdentity } from './runtime.ts';
export { quoteIdentifier, type SqlDriver, type SqlDriverFactory, type SqlValue, type TransactionOptions } from './sql-driver.ts';
export { OBJECTS_TABLE, SqlObjectStore } from './storage/index.ts';
export { isValidKey } from './storage/keys.ts';
export { listedTables } from './table-names.ts';
export { Database } from './tables/database.ts';
export { compareSchemas, databaseIdentity, type DataFacts, describeProblems, isSchemaChangeRefused, type PolicyKind, SCHEMA_CHANGE_REFUSED } from './tables/schema-change.ts';
export { createSchema, type DatabaseDeclaration, defaultLiteral, PLATFORM_PREFIX, tableOrder } from './tables/schema.ts';
export { decodeRow, encodeValue, isPlainObject } from './tables/values.ts';
