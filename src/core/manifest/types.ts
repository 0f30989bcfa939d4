/** The shape of a valid `app.manifest.json`, as app.manifest.schema.json beside it defines it. */

export const MANIFEST_FORMAT = 'platform.application-source.v0';
export const MANIFEST_FILE = 'app.manifest.json';

/** A project's app name, read from its manifest's text without validating it: undefined when the manifest is missing, does not parse or names none. */
export function manifestName(files: Readonly<Record<string, string>>): string | undefined {
  try {
    const name = (JSON.parse(files[MANIFEST_FILE] ?? '') as { name?: unknown } | null)?.name;
    return typeof name === 'string' && name ? name : undefined;
  } catch {
    return undefined;
  }
}

export type FieldType = 'string' | 'number' | 'boolean' | 'datetime' | 'bytes' | 'json' | 'ref';
export type Collation = 'binary' | 'nocase' | 'rtrim';
export type ReferentialAction = 'noAction' | 'restrict' | 'cascade' | 'setNull' | 'setDefault';
export type Capability = 'database' | 'storage';

export interface FieldDeclaration {
  type: FieldType;
  optional?: boolean;
  maxLength?: number;
  unique?: boolean;
  enum?: string[];
  default?: string | number | boolean;
  collate?: Collation;
  table?: string;
  onDelete?: ReferentialAction;
  onUpdate?: ReferentialAction;
  generated?: { expression: string; stored?: boolean };
}

export type IndexColumn = string | { column: string; collate?: Collation; desc?: boolean } | { expression: string; desc?: boolean };

export type IndexDeclaration = string[] | { columns: IndexColumn[]; unique?: boolean; where?: string };

export interface TableDeclaration {
  fields: Record<string, FieldDeclaration>;
  indexes?: Record<string, IndexDeclaration>;
  unique?: string[][];
  checks?: Record<string, string>;
  idSource?: 'runtime' | 'application';
}

export interface StorageLimits {
  maxObjectBytes?: number;
  readBytes?: number;
  writeBytes?: number;
}

export interface Budgets {
  queryRows?: number;
  mutationWrites?: number;
  requestBytes?: number;
  responseBytes?: number;
  clientBundleBytes?: number;
  liveConnections?: number;
  streamedBytes?: number;
}

export interface Manifest {
  $schema?: string;
  format: typeof MANIFEST_FORMAT;
  name: string;
  entrypoints: { client: string; server: string };
  app?: { spa?: boolean; title?: string; language?: string; description?: string; favicon?: string };
  database?: { tables: Record<string, TableDeclaration>; version?: number };
  storage?: StorageLimits;
  capabilities?: Capability[];
  client?: { runtime?: { provider: 'preact'; source?: 'platform' } };
  budgets?: Budgets;
  untypedDependencies?: string[];
}
