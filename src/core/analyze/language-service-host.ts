/**
 * A TypeScript LanguageServiceHost over files in memory: the platform Library and the app's files.
 * Each file has a version, so the language service re-parses only what changed.
 * (Written here rather than taken from @typescript/vfs, whose host treats an empty file as missing.)
 */
import ts from 'typescript';

interface Entry {
  text: string;
  version: number;
  snapshot?: ts.IScriptSnapshot;
}

export class MemoryLanguageServiceHost implements ts.LanguageServiceHost {
  readonly #files = new Map<string, Entry>();
  readonly #roots = new Set<string>();
  /** Files that exist but are never read (JavaScript of installed packages). */
  #present = new Set<string>();
  #directories: Set<string> | undefined;
  #projectVersion = 0;
  #options: ts.CompilerOptions;
  readonly #currentDirectory: string;

  /** Which JSDoc comments are parsed (TypeScript's default: all, which hovers and completions show). */
  readonly jsDocParsingMode: ts.JSDocParsingMode | undefined;

  constructor(options: ts.CompilerOptions, currentDirectory: string, jsDocParsingMode?: ts.JSDocParsingMode) {
    this.#options = options;
    this.#currentDirectory = currentDirectory;
    this.jsDocParsingMode = jsDocParsingMode;
  }

  /** Adds or replaces a file; a root is type-checked as part of the program, others load when imported. */
  set(path: string, text: string, root = false): void {
    const entry = this.#files.get(path);
    if (entry?.text === text && (!root || this.#roots.has(path))) return;
    if (!entry) this.#directories = undefined;
    this.#files.set(path, { text, version: (entry?.version ?? 0) + 1 });
    if (root) this.#roots.add(path);
    this.#projectVersion++;
  }

  /** Replaces some compiler options (the JSX import source follows the app's renderer); the next program is built anew. */
  setOptions(changes: ts.CompilerOptions): void {
    if (Object.entries(changes).every(([key, value]) => this.#options[key] === value)) return;
    this.#options = { ...this.#options, ...changes };
    this.#projectVersion++;
  }

  delete(path: string): void {
    if (!this.#files.delete(path)) return;
    this.#roots.delete(path);
    this.#directories = undefined;
    this.#projectVersion++;
  }

  /** Replaces the set of files known to exist without text; true when it changed. */
  setPresent(paths: ReadonlySet<string>): boolean {
    if (paths.size === this.#present.size && [...paths].every((p) => this.#present.has(p))) return false;
    this.#present = new Set(paths);
    this.#directories = undefined;
    this.#projectVersion++;
    return true;
  }

  #directorySet(): Set<string> {
    if (this.#directories) return this.#directories;
    const set = new Set<string>(['/']);
    for (const path of [...this.#files.keys(), ...this.#present]) {
      for (let i = path.indexOf('/', 1); i > 0; i = path.indexOf('/', i + 1)) set.add(path.slice(0, i));
    }
    this.#directories = set;
    return set;
  }

  getProjectVersion = (): string => String(this.#projectVersion);
  getScriptFileNames = (): string[] => [...this.#roots];
  getScriptVersion = (path: string): string => String(this.#files.get(path)?.version ?? 0);
  getScriptSnapshot = (path: string): ts.IScriptSnapshot | undefined => {
    const entry = this.#files.get(path);
    if (!entry) return undefined;
    entry.snapshot ??= ts.ScriptSnapshot.fromString(entry.text);
    return entry.snapshot;
  };
  getCurrentDirectory = (): string => this.#currentDirectory;
  getCompilationSettings = (): ts.CompilerOptions => this.#options;
  getDefaultLibFileName = (options: ts.CompilerOptions): string => `/${ts.getDefaultLibFileName(options)}`;
  fileExists = (path: string): boolean => this.#files.has(path) || this.#present.has(path);
  readFile = (path: string): string | undefined => this.#files.get(path)?.text;
  directoryExists = (path: string): boolean => this.#directorySet().has(path.replace(/\/$/, '') || '/');
  getDirectories = (path: string): string[] => {
    const prefix = path.endsWith('/') ? path : `${path}/`;
    const out = new Set<string>();
    for (const dir of this.#directorySet()) if (dir.startsWith(prefix) && !dir.slice(prefix.length).includes('/')) out.add(dir.slice(prefix.length));
    return [...out];
  };
  useCaseSensitiveFileNames = (): boolean => true;
}
