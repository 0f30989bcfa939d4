/**
 * The template catalogue the control plane serves (docs/control-plane.md, Template catalogue):
 * `GET /v0/templates` is a `platform.template-catalogue.v0` document, and each archive is served
 * beside it, so `platform new --template <id>` works offline against a control plane on loopback.
 * By default the catalogue holds the repository's templates, zipped under a folder named after the id.
 */
import type { Hono } from 'hono';
import { nodeTemplates } from '../adapters/node/templates';
import { sha256Hex } from '../core/hash';
import { CATALOGUE_PATH, CATALOGUE_PROTOCOL, type CatalogueEntry } from '../core/templates';
import { zipProject } from '../core/zip';
import type { Context } from './context';
import type { ControlEnv } from './middleware';

/** One template the control plane offers. */
export interface CatalogueTemplate {
  id: string;
  title: string;
  /** The archive's top-level folder holding the project. */
  root: string;
  /** The archive, served at `/v0/templates/<id>/archive.zip`. */
  archive: Uint8Array;
  /** What the catalogue states; by default the archive's own SHA-256. */
  sha256?: string;
  /** Where the catalogue says the archive is; by default the control plane's own path for it. */
  archiveUrl?: string;
}

/** The repository's templates as catalogue entries: `<name>-starter`, each zipped under a folder of that id. */
export function repositoryCatalogue(): CatalogueTemplate[] {
  return nodeTemplates().map((template) => {
    const id = `${template.id}-starter`;
    const zipped = zipProject(template.files, { folder: id });
    if (!zipped.ok) throw new Error(`templates/${template.id} cannot be zipped: ${zipped.error.message}`);
    return { id, title: template.description || template.id, root: id, archive: zipped.bytes };
  });
}

export const archivePath = (id: string) => `${CATALOGUE_PATH}/${encodeURIComponent(id)}/archive.zip`;

export function catalogueRoutes(app: Hono<ControlEnv>, ctx: Context, templates: CatalogueTemplate[]): void {
  const byId = new Map(templates.map((t) => [t.id, t]));
  app.get(CATALOGUE_PATH, () => {
    const entries: CatalogueEntry[] = templates.map((t) => ({ id: t.id, title: t.title, archive: t.archiveUrl ?? `${ctx.publicOrigin}${archivePath(t.id)}`, sha256: t.sha256 ?? sha256Hex(t.archive), root: t.root }));
    return new Response(JSON.stringify({ protocol: CATALOGUE_PROTOCOL, templates: entries }), { headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' } });
  });
  app.get(`${CATALOGUE_PATH}/:id/archive.zip`, (c) => {
    const template = byId.get(c.req.param('id'));
    if (!template) return new Response('No such template.\n', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    return new Response(template.archive as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'application/zip', 'content-length': String(template.archive.byteLength), 'cache-control': 'no-cache' } });
  });
}
