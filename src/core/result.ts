/**
 * The one shape of a result that can fail, for results that cross modules: `ok` says which, and each
 * side carries its own fields (`{ ok: true; link }`, `{ ok: false; diagnostic }`), so a caller narrows
 * on `ok` and reads the fields its result names. Each module names its results with it
 * (`type StateImportResult = Result<{ counts: … }, { diagnostic: Diagnostic }>`).
 */
export type Result<Success extends object, Failure extends object> = ({ ok: true } & Success) | ({ ok: false } & Failure);
