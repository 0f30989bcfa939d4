/** `platform dev` and `platform preview`'s local servers: their events, paths, discovery records, personas, the host interface and the admin route. The folder's entry: what the rest of the code base imports of it. */
export { adminExportPage, adminImportTarget, callAdmin } from './admin-client.ts';
export { ADMIN_PATH, ADMIN_PROTOCOL, ADMIN_SECRET_HEADER, type AdminRequest, adminRequestProblem, type AdminResult, answerAdmin } from './admin.ts';
export { assetPath, isRuntimePath, personaBanner } from './assets.ts';
export { findLocalServers, type LocalServerRecord, readServerRecord, SERVER_RECORD_FORMAT } from './discovery.ts';
export { envLocalProblem, readLocalEnv } from './env.ts';
export { type CompileDiagnostic, compileDiagnostic, devEvent, type DevEvent, type DevEventPayload, type DevStreamEvent, formatDevEvent, type PlaygroundEvent, type ReadyDetails } from './events.ts';
export type { DevAnalyzer, LocalHost, LocalServer, LocalServerOptions, PromoteOutcome } from './host.ts';
export { enginePath, envFilePath, isLocalState, type LocalMode, PERSONA_FILE, RECOVERY_DIR, serverRecordPath, statePath } from './paths.ts';
export { DEFAULT_PERSONA, personaFromText, readPersona, writePersona } from './persona.ts';
export { refusedWriteDiagnostic } from './refused-write.ts';
export type { CompilePhases } from './events.ts';
export type { DevBundler } from './host.ts';
