/**
 * Type checking with TypeScript 6 over a virtual file system: the platform's library plus the app's
 * files under /app. A session is kept warm, so re-checking after a one-file edit is incremental.
 */
import { createSystem, createVirtualTypeScriptEnvironment, type VirtualTypeScriptEnvironment } from '@typescript/vfs';
import ts from 'typescript';
import { diagnostic, type Diagnostic } from '../diagnostics';
import { APP_ROOT, ASSET_DECLARATIONS_FILE, libFileName, TYPESCRIPT_LIBS, type Library } from './library';

export const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: TYPESCRIPT_LIBS.map(libFileName),
  types: [],
  strict: true,
  noEmit: true,
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
};

const CHECKED = /\.(tsx?|jsx?|mjs|cjs|json)$/;
const ENCODABLE_HINT =
  'Handler results must be encodable: null, boolean, number, string, Date, Uint8Array, arrays and plain objects. Declare result shapes as type aliases, not interfaces; no Map, Set, class instances or readonly arrays; pick plain fields out of storage receipts.';

export function toVirtual(path: string): string {
  return `${APP_ROOT}/${path}`;
}

export function fromVirtual(path: string): string | undefined {
  return path.startsWith(`${APP_ROOT}/`) ? path.slice(APP_ROOT.length + 1) : undefined;
}

function messageOf(d: ts.Diagnostic): string {
  const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
}

export class TypeCheckSession {
  readonly #library: Library;
  #env: VirtualTypeScriptEnvironment | undefined;
  /** App files in the environment: project-relative path → text. */
  readonly #files = new Map<string, string>();

  constructor(library: Library) {
    this.#library = library;
  }

  /** Makes the environment hold exactly these app files (project-relative path → text). */
  sync(files: ReadonlyMap<string, string>): void {
    const wanted = new Map([...files].filter(([path]) => CHECKED.test(path)));
    if (!this.#env) {
      const fsMap = new Map(this.#library.files);
      for (const [path, text] of wanted) fsMap.set(toVirtual(path), text);
      this.#env = createVirtualTypeScriptEnvironment(createSystem(fsMap), [ASSET_DECLARATIONS_FILE, ...[...wanted.keys()].map(toVirtual)], ts, COMPILER_OPTIONS);
      for (const [path, text] of wanted) this.#files.set(path, text);
      return;
    }
    const env = this.#env;
    for (const [path, text] of wanted) {
      const current = this.#files.get(path);
      if (current === text) continue;
      if (current === undefined) env.createFile(toVirtual(path), text);
      else env.updateFile(toVirtual(path), text);
      this.#files.set(path, text);
    }
    for (const path of [...this.#files.keys()]) {
      if (!wanted.has(path)) {
        env.deleteFile(toVirtual(path));
        this.#files.delete(path);
      }
    }
  }

  /**
   * Parses the libraries and builds a first program on a scratch file, so the first real check does not
   * pay for it. Hosts call it at start-up.
   */
  warm(): void {
    const scratch = '.platform/warm.ts';
    this.sync(new Map([[scratch, "import type {} from 'platform/server';\nexport const warm: number = 1;\n"]]));
    this.check([scratch]);
  }

  /** DG1205 for every syntax and type error in the given project files. */
  check(paths: readonly string[]): Diagnostic[] {
    const env = this.#env;
    if (!env) return [];
    const out: Diagnostic[] = [];
    for (const path of paths) {
      if (!this.#files.has(path)) continue;
      const file = toVirtual(path);
      const found = [...env.languageService.getSyntacticDiagnostics(file), ...env.languageService.getSemanticDiagnostics(file)];
      for (const d of found) {
        if (d.category !== ts.DiagnosticCategory.Error) continue;
        const source = d.file ?? env.getSourceFile(file);
        const span = source && d.start !== undefined ? source.getLineAndCharacterOfPosition(d.start) : undefined;
        const message = `TS${d.code} ${messageOf(d)}`;
        out.push(
          diagnostic('DG1205', message, {
            file: path,
            span: span ? { line: span.line + 1, column: span.character + 1, ...(d.length ? { length: d.length } : {}) } : undefined,
            hint: /\bEncodable\b/.test(message) ? ENCODABLE_HINT : undefined,
          }),
        );
      }
    }
    return out;
  }

  /** The syntax tree the checker holds for a project file (for attribution). */
  sourceFile(path: string): ts.SourceFile | undefined {
    return this.#env?.getSourceFile(toVirtual(path));
  }

  /** The type of a handler's result, printed, for the contract. */
  program(): ts.Program | undefined {
    return this.#env?.languageService.getProgram();
  }
}
