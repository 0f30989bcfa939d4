/** The manifest rules a JSON Schema cannot say: capabilities against blocks, reserved and colliding names, references between tables. */
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import { didYouMean } from '../text/index.ts';
import type { JsonDocument, JsonPath } from './json-document.ts';

/**
 * Field names the runtime owns on every row, compared without case because SQLite column names ignore
 * case: `id`, `createdAt` and `updatedAt` are minted by the runtime; `rowid` and `oid` are SQLite's own.
 */
export const RESERVED_FIELD_NAMES = ['id', 'createdAt', 'updatedAt', 'rowid', 'oid'] as const;

const FIELD_TYPES = new Set(['string', 'number', 'boolean', 'datetime', 'bytes', 'json', 'ref']);
const STRING_ONLY = ['maxLength', 'enum', 'collate'] as const;
const REF_ONLY = ['table', 'onDelete', 'onUpdate'] as const;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Cross-field diagnostics. Tolerates any value: parts the schema already refused are skipped, not re-reported. */
export function crossFieldDiagnostics(value: unknown, json: JsonDocument, file: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (!isObject(value)) return out;
  const report = (path: JsonPath, message: string, hint?: string, key = true) =>
    out.push(diagnostic('DG1002', message, { file, span: key ? json.keySpan(path) : json.valueSpan(path), hint }));

  // Capabilities and their blocks, both directions.
  const capabilities = Array.isArray(value.capabilities) ? value.capabilities.filter((c): c is string => typeof c === 'string') : [];
  for (const capability of ['database', 'storage'] as const) {
    const declared = capabilities.includes(capability);
    const block = capability in value;
    if (block && !declared) {
      report(
        [capability],
        `The "${capability}" block is present but "capabilities" does not contain "${capability}".`,
        `Add "${capability}" to "capabilities", or remove the "${capability}" block.`,
      );
    } else if (declared && !block) {
      const index = capabilities.indexOf(capability);
      report(
        ['capabilities', index],
        `"capabilities" contains "${capability}" but there is no "${capability}" block.`,
        capability === 'storage' ? 'Add "storage": {} for the platform defaults, or remove "storage" from "capabilities".' : 'Add a "database" block with its "tables", or remove "database" from "capabilities".',
        false,
      );
    }
  }

  const database = value.database;
  const tables = isObject(database) && isObject(database.tables) ? database.tables : undefined;
  if (tables) checkTables(tables, report);
  return out;
}

type Report = (path: JsonPath, message: string, hint?: string, key?: boolean) => void;

function checkTables(tables: Json, report: Report): void {
  const tableNames = Object.keys(tables);
  reportCaseCollisions(tableNames, (name, other) =>
    report(['database', 'tables', name], `Tables "${other}" and "${name}" differ only in case; table names ignore case.`, 'Rename one of them.'),
  );
  for (const [tableName, table] of Object.entries(tables)) {
    if (!isObject(table) || !isObject(table.fields)) continue;
    const base: JsonPath = ['database', 'tables', tableName];
    const fields = table.fields;
    const fieldNames = Object.keys(fields);

    for (const name of fieldNames) {
      const reserved = RESERVED_FIELD_NAMES.find((r) => r.toLowerCase() === name.toLowerCase());
      if (reserved) {
        report(
          [...base, 'fields', name],
          `Field "${name}" of table "${tableName}" uses a reserved name.`,
          reserved === 'rowid' || reserved === 'oid' ? `"${reserved}" is SQLite's own row identifier; rename the field.` : 'The runtime supplies id, createdAt and updatedAt on every row; remove the field or rename it.',
        );
      }
    }
    reportCaseCollisions(fieldNames, (name, other) =>
      report([...base, 'fields', name], `Fields "${other}" and "${name}" of table "${tableName}" differ only in case; column names ignore case.`, 'Rename one of them.'),
    );

    for (const [fieldName, field] of Object.entries(fields)) {
      if (isObject(field)) checkField(tableName, fieldName, field, [...base, 'fields', fieldName], tableNames, report);
    }

    const known = (column: string, path: JsonPath, what: string) => {
      if (fieldNames.includes(column)) return;
      report(path, `${what} names "${column}", which table "${tableName}" does not declare.`, didYouMean(column, fieldNames) ?? `Declared fields: ${fieldNames.join(', ') || 'none'}.`, false);
    };
    if (isObject(table.indexes)) {
      for (const [indexName, index] of Object.entries(table.indexes)) {
        const columnsPath: JsonPath = Array.isArray(index) ? [...base, 'indexes', indexName] : [...base, 'indexes', indexName, 'columns'];
        const columns = Array.isArray(index) ? index : isObject(index) && Array.isArray(index.columns) ? index.columns : [];
        columns.forEach((column: unknown, i) => {
          if (typeof column === 'string') known(column, [...columnsPath, i], `Index "${indexName}"`);
          else if (isObject(column) && typeof column.column === 'string' && !('expression' in column)) known(column.column, [...columnsPath, i, 'column'], `Index "${indexName}"`);
        });
      }
    }
    if (Array.isArray(table.unique)) {
      table.unique.forEach((group: unknown, g) => {
        if (!Array.isArray(group)) return;
        group.forEach((column: unknown, i) => {
          if (typeof column === 'string') known(column, [...base, 'unique', g, i], 'A unique group');
        });
      });
    }
  }
}

function checkField(tableName: string, fieldName: string, field: Json, path: JsonPath, tableNames: string[], report: Report): void {
  const type = field.type;
  // An unknown type is the schema's to report; rules that depend on the type would only echo it.
  if (typeof type !== 'string' || !FIELD_TYPES.has(type)) return;
  const where = `Field "${fieldName}" of table "${tableName}"`;
  if (type !== 'string') {
    for (const key of STRING_ONLY) {
      if (key in field) report([...path, key], `${where} is of type "${type}"; "${key}" applies only to string fields.`, `Remove "${key}", or make the field a string.`);
    }
  }
  if (type === 'ref') {
    if (typeof field.table !== 'string') {
      report(path, `${where} is a ref but names no "table".`, `Add "table": the name of the table it points at (${tableNames.join(', ')}).`);
    } else if (!tableNames.includes(field.table)) {
      report([...path, 'table'], `${where} points at table "${field.table}", which is not declared.`, didYouMean(field.table, tableNames) ?? `Declared tables: ${tableNames.join(', ')}.`, false);
    }
  } else {
    for (const key of REF_ONLY) {
      if (key in field) report([...path, key], `${where} is of type "${type}"; "${key}" applies only to ref fields.`, `Remove "${key}", or make the field a ref.`);
    }
  }
  for (const action of ['onDelete', 'onUpdate'] as const) {
    if (field[action] === 'setNull' && field.optional !== true) {
      report([...path, action], `${where} is required, so "${action}": "setNull" could never succeed.`, 'Make the field optional, or choose another action.', false);
    }
    if (field[action] === 'setDefault' && !('default' in field)) {
      report([...path, action], `${where} has no default, so "${action}": "setDefault" has nothing to set.`, 'Add a "default", or choose another action.', false);
    }
  }
  const value = field.default;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    if ('generated' in field) {
      report([...path, 'default'], `${where} is generated, so it cannot also have a default.`, 'Remove "default" or "generated".');
    } else if (type === 'bytes' || type === 'json' || type === 'ref') {
      report([...path, 'default'], `${where} is of type "${type}", which cannot have a default.`, 'Remove "default".');
    } else {
      const expected = type === 'number' ? 'number' : type === 'boolean' ? 'boolean' : 'string';
      if (typeof value !== expected) {
        report([...path, 'default'], `${where} is of type "${type}" but its default is ${JSON.stringify(value)}.`, `Give a ${expected} default.`, false);
      } else if (type === 'datetime' && Number.isNaN(Date.parse(value as string))) {
        report([...path, 'default'], `${where} is a datetime but its default ${JSON.stringify(value)} is not an ISO 8601 date.`, 'Use a value such as "2026-01-01T00:00:00Z".', false);
      } else if (Array.isArray(field.enum) && typeof value === 'string' && !field.enum.includes(value)) {
        report([...path, 'default'], `${where} defaults to ${JSON.stringify(value)}, which is not one of its enum values.`, didYouMean(value, field.enum.map(String)) ?? `Use one of ${field.enum.map((v) => JSON.stringify(v)).join(', ')}.`, false);
      } else if (typeof field.maxLength === 'number' && typeof value === 'string' && value.length > field.maxLength) {
        report([...path, 'default'], `${where} defaults to a string longer than its maxLength of ${field.maxLength}.`, undefined, false);
      }
    }
  }
}

function reportCaseCollisions(names: string[], report: (name: string, other: string) => void): void {
  const seen = new Map<string, string>();
  for (const name of names) {
    const lower = name.toLowerCase();
    const other = seen.get(lower);
    if (other !== undefined) report(name, other);
    else seen.set(lower, name);
  }
}

