/**
 * Operation input validated against its descriptor before the handler runs: every declared field is
 * required, the object is exact, numbers are finite, datetime is a Date and bytes a Uint8Array.
 * A refusal is an ordinary error (400 operation_failed) whose message names the field.
 */
import type { InputDescriptorJson } from '../analyze/index.ts';

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  if (value instanceof Uint8Array) return 'bytes';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a finite number',
  boolean: 'true or false',
  datetime: 'a date',
  bytes: 'bytes (a Uint8Array)',
  json: 'a JSON value',
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function isJson(value: unknown, depth = 0): boolean {
  if (depth > 200) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isJson(v, depth + 1));
  if (isPlainObject(value)) return Object.values(value).every((v) => v === undefined || isJson(v, depth + 1));
  return false;
}

/** Returns the input as the handler receives it, or throws an Error naming the offending field. */
export function validateInput(descriptor: { [key: string]: InputDescriptorJson }, input: unknown, path = ''): Record<string, unknown> {
  const where = path ? `Input field "${path}"` : 'The input';
  if (!isPlainObject(input)) throw new Error(`${where} must be an object, not ${describe(input)}.`);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(input)) {
    if (!Object.prototype.hasOwnProperty.call(descriptor, key)) throw new Error(`Input field "${path ? `${path}.` : ''}${key}" is not declared by the operation.`);
  }
  for (const [key, expected] of Object.entries(descriptor)) {
    const name = path ? `${path}.${key}` : key;
    if (!Object.prototype.hasOwnProperty.call(input, key) || input[key] === undefined) throw new Error(`Input field "${name}" is missing.`);
    const value = input[key];
    if (typeof expected === 'object') {
      out[key] = validateInput(expected, value, name);
      continue;
    }
    const ok =
      expected === 'string' ? typeof value === 'string'
      : expected === 'number' ? typeof value === 'number' && Number.isFinite(value)
      : expected === 'boolean' ? typeof value === 'boolean'
      : expected === 'datetime' ? value instanceof Date && !Number.isNaN(value.getTime())
      : expected === 'bytes' ? value instanceof Uint8Array
      : expected === 'json' ? isJson(value)
      : false;
    if (!ok) throw new Error(`Input field "${name}" must be ${EXPECTED[expected] ?? `of type ${expected}`}, not ${describe(value)}.`);
    out[key] = value;
  }
  return out;
}
