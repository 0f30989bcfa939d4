/**
 * Type checking with TypeScript 6 over a virtual file system: the platform's library plus the app's
 * files under /app. A session is kept warm, so re-checking after a one-file edit is incremental.
 */
import ts from 'typescript';
import { RENDERERS, type Renderer, APP_ROOT, ASSET_DECLARATIONS_FILE, libFileName, TYPESCRIPT_LIBS, type Library, type PackageCache, type PackageFiles } from '../project/index.ts';
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import { sha256Hex } from '../hash/index.ts';
import { MemoryLanguageServiceHost } from './language-service-host.ts';
import { preparedRegistry, type PreparedFiles } from './prepared-files.ts';

/** The options apps are checked with; a function so that TypeScript's enums are read on first use, not at import (the CLI loads TypeScript lazily). */
export const compilerOptions = (): ts.CompilerOptions => ({
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: TYPESCRIPT_LIBS.map(libFileName),
  types: [],
  strict: true,
  // Nothing is written; declarations are emitted on request for the server zone (the generated contract).
  declaration: true,
  emitDeclarationOnly: true,
  skipLibCheck: true,
  isolatedModules: true,
  allowImportingTsExtensions: true,
  resolveJsonModule: true,
  allowJs: true,
  checkJs: false,
  esModuleInterop: true,
  forceConsistentCasingInFileNames: true,
  jsx: ts.JsxEmit.ReactJSX,
  jsxImportSource: 'preact',
});

const CHECKED = /\.(tsx?|jsx?|mjs|cjs|json)$/;
const ENCODABLE_HINT =
  'Handler results must be encodable: null, boolean, number, string, Date, Uint8Array, arrays and plain objects. Declare result shapes as type aliases, not interfaces; no Map, Set, class instances or readonly arrays; pick plain fields out of storage receipts.';

/** TS7016: a package resolved to JavaScript without declarations. */
const UNTYPED_MODULE = 7016;

function untypedHint(message: string): string {
  const name = /module '([^']+)'/.exec(message)?.[1] ?? 'the package';
  return `Install its type declarations if they exist, or acknowledge it in app.manifest.json with "untypedDependencies": ["${name}"] to use it typed as any.`;
}

export function toVirtual(path: string): string {
  return `${APP_ROOT}/${path}`;
}

export function fromVirtual(path: string): string | undefined {
  return path.startsWith(`${APP_ROOT}/`) ? path.slice(APP_ROOT.length + 1) : undefined;
}

function messageOf(d: ts.Diagnostic): string {
  // Paths in the checker's words are the virtual file system's: say them project-relative.
  const text = ts.flattenDiagnosticMessageText(d.messageText, '\n').replaceAll(`'${APP_ROOT}/`, "'");
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
}

export class TypeCheckSession {
  readonly #host: MemoryLanguageServiceHost;
  readonly #service: ts.LanguageService;
  /** App files in the session: project-relative path → text. */
  readonly #files = new Map<string, string>();
  /** Installed package files in the session (project-relative path → text): loaded on import, never roots. */
  readonly #packages = new Map<string, string>();
  /** Counts changes to the package files, which the emitted declarations depend on too. */
  #packagesVersion = 0;
  /** The installed packages read so far, reused while their package.json is unchanged. */
  readonly packageCache: PackageCache = new Map();
  /**
   * Each file's declarations as last emitted (keyed by the declaration's project-relative path) with its
   * declaration errors, under the caller's key for what they depend on; and the files last asked for.
   */
  readonly #declarations = new Map<string, { key: string; files: Map<string, string>; diagnostics: readonly ts.Diagnostic[] }>();
  #declared: readonly string[] = [];
  /** Each script's declaration signature (see `signature`), with the text and the context it was found under. */
  readonly #signatures = new Map<string, { text: string; context: string; signature: string }>();
  /** Each file's last diagnostics, with the key (a digest of everything they depend on) they were found under. */
  readonly #checked = new Map<string, { key: string; view?: string; diagnostics: Diagnostic[] }>();
  readonly #library: Library;

  /**
   * `options.forTypeErrorsOnly`: JSDoc in TypeScript files is parsed only where a type error needs it, as tsc
   * does; for hosts that only check and build (the CLI), never for one that shows hovers (the playground).
   * `options.prepared`: library files parsed and bound ahead of time (`preparedFiles` of another session
   * with the same options), reused where their text is the library's.
   */
  constructor(library: Library, options: { forTypeErrorsOnly?: boolean; prepared?: PreparedFiles } = {}) {
    const jsDocParsingMode = options.forTypeErrorsOnly ? ts.JSDocParsingMode.ParseForTypeErrors : undefined;
    this.#library = library;
    this.#host = new MemoryLanguageServiceHost(compilerOptions(), APP_ROOT, jsDocParsingMode);
    for (const [path, text] of library.files) this.#host.set(path, text, path === ASSET_DECLARATIONS_FILE);
    const registry = ts.createDocumentRegistry(undefined, undefined, jsDocParsingMode);
    this.#service = ts.createLanguageService(this.#host, options.prepared ? preparedRegistry(registry, options.prepared) : registry);
  }

  /** Types JSX for the renderer the app selected (its jsx-runtime's declarations). */
  setRenderer(renderer: Renderer): void {
    this.#host.setOptions({ jsxImportSource: RENDERERS[renderer].jsxImportSource });
  }

  /** Makes the session hold exactly these app files (project-relative path → text). */
  sync(files: ReadonlyMap<string, string>): void {
    for (const [path, text] of files) {
      if (!CHECKED.test(path) || this.#files.get(path) === text) continue;
      this.#host.set(toVirtual(path), text, true);
      this.#files.set(path, text);
    }
    for (const path of [...this.#files.keys()]) {
      if (!files.has(path)) {
        this.#host.delete(toVirtual(path));
        this.#files.delete(path);
        this.#checked.delete(path);
        this.#signatures.delete(path);
        this.#declarations.delete(path);
      }
    }
  }

  /** Makes the session hold exactly these files of installed packages (the app's node_modules). */
  syncPackages(files: PackageFiles): void {
    for (const [path, text] of files.texts) {
      if (this.#packages.get(path) === text) continue;
      this.#host.set(toVirtual(path), text);
      this.#packages.set(path, text);
      this.#packagesVersion++;
    }
    for (const path of [...this.#packages.keys()]) {
      if (!files.texts.has(path)) {
        this.#host.delete(toVirtual(path));
        this.#packages.delete(path);
        this.#packagesVersion++;
      }
    }
    if (this.#host.setPresent(new Set([...files.present].map(toVirtual)))) this.#packagesVersion++;
  }

  /**
   * Parses the libraries and builds a first program on a scratch file, so the first real check does not
   * pay for it. Hosts call it at start-up.
   */
  warm(): void {
    const scratch = '.platform/warm.ts';
    this.sync(new Map([[scratch, "import type {} from 'platform/server';\nexport const warm: number = 1;\n"]]));
    this.check([scratch]);
    this.sync(new Map());
  }

  /**
   * The library's files the current program holds, parsed and bound (its type checker made): what a
   * start-up snapshot keeps for the sessions of later processes (`options.prepared`).
   */
  preparedFiles(): Map<string, ts.SourceFile> {
    const program = this.#service.getProgram();
    if (!program) throw new Error('the type checker has no program');
    program.getTypeChecker();
    return new Map(program.getSourceFiles().filter((file) => this.#library.files.has(file.fileName)).map((file) => [file.fileName, file]));
  }

  /**
   * DG1205 for every syntax and type error in the given project files, and the declaration errors of the
   * files whose declarations were last emitted (the server zone: its declarations type the contract).
   */
  check(paths: readonly string[]): Diagnostic[] {
    const out: Diagnostic[] = [];
    const program = this.#service.getProgram();
    if (!program) throw new Error('the type checker has no program');
    for (const path of paths) {
      if (!this.#files.has(path)) continue;
      const source = program.getSourceFile(toVirtual(path));
      if (!source) continue;
      const declared = this.#declared.includes(path) ? (this.#declarations.get(path)?.diagnostics ?? []) : [];
      const found = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source), ...declared];
      for (const d of found) {
        if (d.category !== ts.DiagnosticCategory.Error) continue;
        const at = d.file ?? source;
        const span = d.start !== undefined ? at.getLineAndCharacterOfPosition(d.start) : undefined;
        const message = `TS${d.code} ${messageOf(d)}`;
        out.push(
          diagnostic('DG1205', message, {
            file: path,
            span: span ? { line: span.line + 1, column: span.character + 1, ...(d.length ? { length: d.length } : {}) } : undefined,
            hint: /\bEncodable\b/.test(message) ? ENCODABLE_HINT : d.code === UNTYPED_MODULE ? untypedHint(message) : undefined,
          }),
        );
      }
    }
    return out;
  }

  /**
   * A file's diagnostics as `check` finds them, found again only when `key` changed: the caller's digest
   * of everything they depend on (the file, what it can import, the declarations in scope, the packages).
   * A type checker is made anew for every program, so re-checking a file the edit cannot affect costs as
   * much as the first time; this is what makes a one-file edit cost one file.
   *
   * `view`: the same digest with only the part of the contract the file can observe in place of the
   * whole (contract-view.ts). Diagnostics found without errors stand while it is unchanged, whatever
   * else of the contract changed: a file that had errors is checked again, since their messages may
   * name the contract's other operations.
   */
  checkCached(path: string, key: string, view?: string): Diagnostic[] {
    const kept = this.#checked.get(path);
    if (kept && (kept.key === key || (view !== undefined && kept.view === view && kept.diagnostics.length === 0))) {
      if (kept.key !== key) this.#checked.set(path, { key, view, diagnostics: kept.diagnostics });
      return kept.diagnostics;
    }
    const diagnostics = this.check([path]);
    this.#checked.set(path, { key, view, diagnostics });
    return diagnostics;
  }

  /** The declarations `emitDeclarations` last returned (empty before the first). */
  get emittedDeclarations(): ReadonlyMap<string, string> {
    return new Map(this.#declared.flatMap((path) => [...(this.#declarations.get(path)?.files ?? [])]));
  }

  /** Changes whenever the installed packages' files in the session change (they are in every file's scope). */
  get packagesVersion(): number {
    return this.#packagesVersion;
  }

  /**
   * A digest of what a project script shows the files that import it: its declarations, emitted without
   * type-checking its body (as tsc's builder finds a file's `signature`). A body-only edit leaves it as it
   * was, so what imports the file need not be checked again. Found again only when the file's text or
   * `context` (the caller's digest of the signatures of what the file imports, whose types its
   * declarations may show) changed. Undefined for a file that is not a script of the session, or whose
   * declarations cannot be emitted: the caller then takes its text.
   */
  signature(path: string, context: string): string | undefined {
    const text = this.#files.get(path);
    if (text === undefined || !/\.(tsx?|mts|cts)$/.test(path) || /\.d\.[mc]?ts$/.test(path)) return undefined;
    const kept = this.#signatures.get(path);
    if (kept && kept.text === text && kept.context === context) return kept.signature;
    // forceDtsEmit: declarations even for a file with errors, with no full check of it first.
    const output = this.#service.getEmitOutput(toVirtual(path), true, true);
    if (output.emitSkipped) return undefined;
    const signature = sha256Hex(output.outputFiles.map((file) => `${file.name}\n${file.text}`).join('\0'));
    this.#signatures.set(path, { text, context, signature });
    return signature;
  }

  /**
   * TypeScript declarations of the given project files (keyed by the declaration's project-relative
   * path), as the compiler would emit them. Emitting type-checks a file, so each file's are kept until
   * `keyOf` (the caller's digest of everything they depend on: the file, the signatures of what it
   * imports, the declarations in scope, the packages) says something changed: a body-only edit emits the
   * edited file's again, not every file's.
   */
  emitDeclarations(paths: readonly string[], keyOf: (path: string) => string): Map<string, string> {
    const out = new Map<string, string>();
    const declared: string[] = [];
    let program: ts.Program | undefined;
    for (const path of paths) {
      if (!this.#files.has(path) || !/\.(tsx?|mts|cts)$/.test(path)) continue;
      declared.push(path);
      const key = `${this.#packagesVersion}:${keyOf(path)}`;
      let kept = this.#declarations.get(path);
      if (kept?.key !== key) {
        program ??= this.#service.getProgram();
        const files = new Map<string, string>();
        for (const file of this.#service.getEmitOutput(toVirtual(path), true).outputFiles) {
          const relative = fromVirtual(file.name);
          if (relative !== undefined) files.set(relative, file.text);
        }
        const source = program?.getSourceFile(toVirtual(path));
        kept = { key, files, diagnostics: source ? program!.getDeclarationDiagnostics(source) : [] };
        this.#declarations.set(path, kept);
      }
      for (const [name, text] of kept.files) out.set(name, text);
    }
    this.#declared = declared;
    return out;
  }

  /** The language service, for editor features (completions, hover) over the same program. */
  get service(): ts.LanguageService {
    return this.#service;
  }
}
