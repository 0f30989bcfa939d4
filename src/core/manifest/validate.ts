/** Manifest validation: JSON syntax, the JSON Schema, cross-field rules and the files the manifest names. */
import { diagnostic, hasErrors, type Diagnostic } from '../diagnostics/index.ts';
import { normalizeProjectPath, type FileSystem } from '../fs/index.ts';
import { crossFieldDiagnostics } from './cross-field.ts';
import { JsonDocument } from './json-document.ts';
import { schemaDiagnostics } from './schema-errors.ts';
import { MANIFEST_FILE, type Manifest } from './types.ts';

export interface ManifestResult {
  /** The manifest, present only when it has no error diagnostics. */
  manifest?: Manifest;
  diagnostics: Diagnostic[];
}

/**
 * Validates manifest text on its own (no file system): syntax, duplicate keys, schema, cross-field rules.
 * Every problem is reported, not only the first.
 */
export function validateManifestText(text: string, file: string = MANIFEST_FILE): ManifestResult & { json: JsonDocument } {
  const json = new JsonDocument(text);
  const diagnostics: Diagnostic[] = json.problems.map((p) =>
    diagnostic('DG1002', `${file} is not valid JSON: ${p.message}.`, { file, span: p.span }),
  );
  if (json.hasSyntaxErrors) return { diagnostics, json };
  const value = json.value();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    diagnostics.push(diagnostic('DG1002', `${file} must hold a JSON object.`, { file, span: json.valueSpan([]), hint: 'Start from { "format": "platform.application-source.v0", "name": …, "entrypoints": … }.' }));
    return { diagnostics, json };
  }
  diagnostics.push(...schemaDiagnostics(value, json, file), ...crossFieldDiagnostics(value, json, file));
  return hasErrors(diagnostics) ? { diagnostics, json } : { manifest: value as Manifest, diagnostics, json };
}

/**
 * Reads and validates `app.manifest.json` of a project, including the files it names: the entrypoints
 * (DG1101 when absolute or escaping, DG1002 when missing) and the favicon under public/ (DG1404).
 */
export async function checkManifest(fs: FileSystem): Promise<ManifestResult> {
  const file = MANIFEST_FILE;
  const text = await fs.readText(file);
  if (text === undefined) {
    return { diagnostics: [diagnostic('DG1001', `No ${file} in this directory.`, { hint: 'Run the command in an application directory, or create one with `platform new <directory>`.' })] };
  }
  const result = validateManifestText(text, file);
  const { json } = result;
  const diagnostics = [...result.diagnostics];
  const value = json.value() as Record<string, unknown> | undefined;
  const entrypoints = value && typeof value.entrypoints === 'object' && value.entrypoints !== null ? (value.entrypoints as Record<string, unknown>) : {};

  for (const role of ['client', 'server'] as const) {
    const path = entrypoints[role];
    if (typeof path !== 'string' || path === '') continue;
    const span = json.valueSpan(['entrypoints', role]);
    const normal = normalizeProjectPath(path);
    if (normal === undefined || normal === '') {
      diagnostics.push(
        diagnostic('DG1101', `entrypoints.${role} ${JSON.stringify(path)} is ${/^([/\\]|[A-Za-z]:)/.test(path) ? 'an absolute path' : 'outside the project'}.`, {
          file,
          span,
          hint: `Use a project-relative path such as "${role === 'client' ? 'src/client/main.tsx' : 'src/server/index.ts'}".`,
        }),
      );
      continue;
    }
    const kind = await fs.stat(normal);
    if (kind !== 'file') {
      diagnostics.push(
        diagnostic('DG1002', `entrypoints.${role} names ${JSON.stringify(path)}, ${kind === 'directory' ? 'which is a directory, not a file' : 'which does not exist'}.`, {
          file,
          span,
          hint: `Create ${normal}, or point entrypoints.${role} at the existing ${role} entrypoint.`,
        }),
      );
    }
  }

  const app = value?.app as Record<string, unknown> | undefined;
  const favicon = typeof app?.favicon === 'string' ? app.favicon : undefined;
  if (favicon !== undefined && favicon.startsWith('/')) {
    const target = normalizeProjectPath(`public${favicon}`);
    if (target === undefined || !target.startsWith('public/') || (await fs.stat(target)) !== 'file') {
      diagnostics.push(
        diagnostic('DG1404', `The favicon ${JSON.stringify(favicon)} is not present under public/.`, {
          file,
          span: json.valueSpan(['app', 'favicon']),
          hint: `Add the file public${favicon}, or remove app.favicon.`,
        }),
      );
    }
  }
  return hasErrors(diagnostics) ? { diagnostics } : { manifest: value as unknown as Manifest, diagnostics };
}
