/** The diagnostic catalogue, the diagnostic value and the command envelope. */
export { catalogue, isDiagnosticCode, type CatalogueEntry, type DiagnosticArea, type DiagnosticCode, type Severity } from './catalogue.ts';
export { diagnostic, hasErrors, sortDiagnostics, type Diagnostic, type DiagnosticInit, type Span } from './diagnostic.ts';
export { COMMAND_PROTOCOL, envelope, exitStatus, type CommandEnvelope } from './envelope.ts';

// What the rest of the code base uses of this folder's other modules.
export { catalogueMarkdown } from './catalogue-doc.ts';
