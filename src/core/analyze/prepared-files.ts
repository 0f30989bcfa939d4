/**
 * Library files parsed and bound ahead of time (the CLI's start-up snapshot holds them, see
 * scripts/build-cli.ts), handed to a type-check session's language service through its document registry.
 *
 * TypeScript binds a source file once and reuses it in every later program (what a shared document
 * registry does for tsserver's projects); a file parsed and bound in the snapshot is reused the same way.
 * A prepared file is served only for exactly its text and parse options; anything else is parsed as usual.
 */
import ts from 'typescript';

/** Virtual path (as in the Library: `/lib.dom.d.ts`, `/node_modules/preact/src/index.d.ts`) → its parsed, bound source file. */
export type PreparedFiles = ReadonlyMap<string, ts.SourceFile>;

type SourceFileOptions = ts.CreateSourceFileOptions | ts.ScriptTarget | undefined;
/** What the language service's source files carry besides the public fields (TypeScript's own, unexported). */
type ServiceSourceFile = ts.SourceFile & { version: string; jsDocParsingMode?: ts.JSDocParsingMode };

/** `inner`, except that the prepared files are served for their own text and options, and never released. */
export function preparedRegistry(inner: ts.DocumentRegistry, prepared: PreparedFiles): ts.DocumentRegistry {
  /** Paths served prepared: the inner registry holds no entry for them. */
  const served = new Set<string>();
  const take = (fileName: string, snapshot: ts.IScriptSnapshot, version: string, options: SourceFileOptions): ts.SourceFile | undefined => {
    const file = prepared.get(fileName) as ServiceSourceFile | undefined;
    if (!file || file.version !== version || typeof options !== 'object') return undefined;
    if (file.languageVersion !== options.languageVersion || file.impliedNodeFormat !== options.impliedNodeFormat) return undefined;
    if (file.jsDocParsingMode !== options.jsDocParsingMode) return undefined;
    if (snapshot.getLength() !== file.text.length || snapshot.getText(0, file.text.length) !== file.text) return undefined;
    served.add(fileName);
    return file;
  };
  return {
    ...inner,
    acquireDocumentWithKey(fileName, path, host, key, snapshot, version, kind, options) {
      return take(fileName, snapshot, version, options) ?? inner.acquireDocumentWithKey(fileName, path, host, key, snapshot, version, kind, options);
    },
    updateDocumentWithKey(fileName, path, host, key, snapshot, version, kind, options) {
      const file = take(fileName, snapshot, version, options);
      if (file) return file;
      // A file served prepared before and changed since was never in the inner registry: acquire it there.
      if (served.delete(fileName)) return inner.acquireDocumentWithKey(fileName, path, host, key, snapshot, version, kind, options);
      return inner.updateDocumentWithKey(fileName, path, host, key, snapshot, version, kind, options);
    },
    releaseDocumentWithKey(path: ts.Path, key: ts.DocumentRegistryBucketKey, kind?: ts.ScriptKind, format?: ts.ResolutionMode) {
      if (!served.has(path)) inner.releaseDocumentWithKey(path, key, kind!, format);
    },
  };
}
