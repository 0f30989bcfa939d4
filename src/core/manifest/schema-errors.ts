/** Validates a manifest value against the JSON Schema and turns ajv's errors into DG1002/DG1003 diagnostics. */
import type { ErrorObject } from 'ajv/dist/2020.js';
import schema from './app.manifest.schema.json' with { type: 'json' };
// The schema compiled ahead of time by ajv (scripts/manifest-validator.ts): compiling it at each start cost ~70 ms.
import validator from './manifest-validator.generated.js';
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import { didYouMean } from '../text/index.ts';
import { formatPath, type JsonDocument, type JsonPath } from './json-document.ts';

export const manifestSchema = schema;

function pointerToPath(pointer: string, json: JsonDocument): JsonPath {
  if (pointer === '') return [];
  const path: JsonPath = [];
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const parent = json.node(path);
    path.push(parent?.type === 'array' && /^\d+$/.test(segment) ? Number(segment) : segment);
  }
  return path;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' && Number.isInteger(value)) return `the number ${value}`;
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${JSON.stringify(value)}`;
}

const TYPE_NAMES: Record<string, string> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
};

function schemaDescription(error: ErrorObject): string | undefined {
  const parent = error.parentSchema as { description?: unknown } | undefined;
  return typeof parent?.description === 'string' ? parent.description : undefined;
}

/** True when a limit's ceiling, not just a range, is what the value broke (storage limits and budgets). */
function isLimit(path: JsonPath): boolean {
  return (path[0] === 'storage' || path[0] === 'budgets') && path.length === 2;
}

function toDiagnostic(error: ErrorObject, json: JsonDocument, file: string): Diagnostic | undefined {
  const path = pointerToPath(error.instancePath, json);
  const where = formatPath(path);
  const description = schemaDescription(error);
  const at = (span: ReturnType<JsonDocument['valueSpan']>, hint?: string) => ({ file, span, hint });
  const params = error.params as Record<string, unknown>;

  switch (error.keyword) {
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      const allowed = Object.keys((error.parentSchema as { properties?: object }).properties ?? {});
      const hint = didYouMean(name, allowed) ?? (allowed.length ? `Allowed here: ${allowed.join(', ')}.` : undefined);
      return diagnostic('DG1003', `Unknown property "${name}" in ${where}.`, at(json.keySpan([...path, name]), hint));
    }
    case 'required': {
      const name = String(params.missingProperty);
      const child = (error.parentSchema as { properties?: Record<string, { description?: string }> }).properties?.[name];
      return diagnostic('DG1002', `${where === 'the manifest' ? 'The manifest' : where} is missing the required property "${name}".`, at(json.keySpan(path), child?.description));
    }
    case 'propertyNames': {
      const name = String(params.propertyName);
      return diagnostic('DG1002', `"${name}" is not a valid name in ${where}.`, at(json.keySpan([...path, name]), description ?? 'Names start with a letter, then letters, digits or underscores.'));
    }
    case 'const':
      return diagnostic('DG1002', `${where} must be ${JSON.stringify(params.allowedValue)}, not ${describe(error.data)}.`, at(json.valueSpan(path), description));
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String);
      const hint = typeof error.data === 'string' ? didYouMean(error.data, allowed) : undefined;
      return diagnostic(
        'DG1002',
        `${where} is ${describe(error.data)}; it must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}.`,
        at(json.valueSpan(path), hint ?? description),
      );
    }
    case 'type': {
      const expected = String(params.type).split(',').map((t) => TYPE_NAMES[t] ?? t).join(' or ');
      return diagnostic('DG1002', `${where} must be ${expected}, not ${describe(error.data)}.`, at(json.valueSpan(path), description));
    }
    case 'anyOf':
      return diagnostic('DG1002', `${where} has an unusable value: ${describe(error.data)}.`, at(json.valueSpan(path), description));
    case 'pattern':
      return diagnostic('DG1002', `${where} ${JSON.stringify(error.data)} does not match the pattern ${String(params.pattern)}.`, at(json.valueSpan(path), description));
    case 'minLength':
    case 'maxLength': {
      const bound = error.keyword === 'minLength' ? 'at least' : 'at most';
      return diagnostic('DG1002', `${where} must be ${bound} ${String(params.limit)} characters long.`, at(json.valueSpan(path), description));
    }
    case 'minItems':
    case 'maxItems': {
      const bound = error.keyword === 'minItems' ? 'at least' : 'at most';
      return diagnostic('DG1002', `${where} must have ${bound} ${String(params.limit)} item${params.limit === 1 ? '' : 's'}.`, at(json.valueSpan(path), description));
    }
    case 'uniqueItems': {
      const second = Number(params.i);
      return diagnostic('DG1002', `${where} lists ${JSON.stringify((error.data as unknown[])[second])} more than once.`, at(json.valueSpan([...path, second]), 'Remove the duplicate.'));
    }
    case 'maximum':
      if (isLimit(path)) {
        return diagnostic(
          'DG1002',
          `${where} is ${String(error.data)}, above its ceiling of ${String(params.limit)}.`,
          at(json.valueSpan(path), `Limits can be lowered, never raised: use a value up to ${String(params.limit)}, or remove it for the default.`),
        );
      }
      return diagnostic('DG1002', `${where} must be at most ${String(params.limit)}, not ${String(error.data)}.`, at(json.valueSpan(path), description));
    case 'minimum':
      return diagnostic('DG1002', `${where} must be at least ${String(params.limit)}, not ${String(error.data)}.`, at(json.valueSpan(path), description));
    default:
      return diagnostic('DG1002', `${where} ${error.message ?? 'is invalid'}.`, at(json.valueSpan(path), description));
  }
}

/** Every schema violation of a parsed manifest, one diagnostic each, located in the JSON text. */
export function schemaDiagnostics(value: unknown, json: JsonDocument, file: string): Diagnostic[] {
  const validate = validator;
  if (validate(value)) return [];
  const errors = validate.errors ?? [];
  // `if` errors only restate their branch's errors; a propertyNames error restates its inner pattern error;
  // the branches of an anyOf are summarized by the anyOf error itself.
  const anyOfs = errors.filter((e) => e.keyword === 'anyOf');
  const kept = errors.filter((e) => {
    if (e.keyword === 'if' || e.propertyName !== undefined) return false;
    return !anyOfs.some((a) => a !== e && e.instancePath === a.instancePath && e.schemaPath.startsWith(a.schemaPath.slice(0, -'anyOf'.length)));
  });
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const error of kept) {
    const d = toDiagnostic(error, json, file);
    if (!d) continue;
    const key = `${d.code}:${d.span?.line}:${d.span?.column}:${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(d);
  }
  return out;
}
