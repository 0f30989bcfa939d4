/**
 * Type checking with TypeScript 6 over a virtual file system: the platform's library plus the app's
 * files under /app. A session is kept warm, so re-checking after a one-file edit is incremental.
 */
import ts from 'typescript';
import { RENDERERS, type Renderer } from '../analyze/packages';
import { diagnostic, type Diagnostic } from '../diagnostics';
import { MemoryLanguageServiceHost } from './language-service-host';
import { APP_ROOT, ASSET_DECLARATIONS_FILE, libFileName, TYPESCRIPT_LIBS, type Library } from './library';
import type { PackageCache, PackageFiles } from './package-types';
import { preparedRegistry, type PreparedFiles } from './prepared-files';

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
  /** The last declarations emitted, the texts they were emitted from, and each file's declaration errors. */
  #declarations: { key: string; files: Map<string, string>; diagnostics: Map<string, readonly ts.Diagnostic[]> } | undefined;
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
      const found = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source), ...(this.#declarations?.diagnostics.get(path) ?? [])];
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
    return this.#declarations?.files ?? new Map();
  }

  /** Changes whenever the installed packages' files in the session change (they are in every file's scope). */
  get packagesVersion(): number {
    return this.#packagesVersion;
  }

  /**
   * TypeScript declarations of the given project files (keyed by the declaration's project-relative
   * path), as the compiler would emit them. Emitting type-checks those files, so the result is kept
   * until one of them, or one of the files in `dependsOn`, changes.
   */
  emitDeclarations(paths: readonly string[], dependsOn: readonly string[] = []): Map<string, string> {
    const key = JSON.stringify([this.#packagesVersion, ...[...paths, ...dependsOn].map((path) => [path, this.#files.get(path)])]);
    if (this.#declarations?.key === key) return this.#declarations.files;
    const out = new Map<string, string>();
    const diagnostics = new Map<string, readonly ts.Diagnostic[]>();
    const program = this.#service.getProgram();
    for (const path of paths) {
      if (!this.#files.has(path) || !/\.(tsx?|mts|cts)$/.test(path)) continue;
      for (const file of this.#service.getEmitOutput(toVirtual(path), true).outputFiles) {
        const relative = fromVirtual(file.name);
        if (relative !== undefined) out.set(relative, file.text);
      }
      const source = program?.getSourceFile(toVirtual(path));
      if (source) diagnostics.set(path, program!.getDeclarationDiagnostics(source));
    }
    this.#declarations = { key, files: out, diagnostics };
    return out;
  }

  /** The language service, for editor features (completions, hover) over the same program. */
  get service(): ts.LanguageService {
    return this.#service;
  }
}
