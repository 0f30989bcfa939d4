import { authenticated, defineServer, endpoint, mutation, ownedTable, query } from 'platform/server';
import { cleanName, NAME_HEADER } from '../shared/files';

export type FileInfo = { id: string; name: string; contentType: string; size: number; uploadedAt: Date };

/** A storage key minted by the server (never taken from the client): random, and key-safe. */
function newKey(): string {
  const random = Array.from({ length: 4 }, () => Math.floor(Math.random() * 2 ** 32).toString(36)).join('');
  return `uploads/${Date.now().toString(36)}-${random}`;
}

export default defineServer({
  queries: {
    'files.list': query({
      input: {},
      handler: async (ctx): Promise<FileInfo[]> => {
        const rows = await ctx.db.table('files').all();
        return rows.map((row) => ({ id: row.id, name: row.name, contentType: row.contentType, size: row.size, uploadedAt: row.createdAt }));
      },
    }),
  },
  mutations: {
    'files.remove': mutation({
      input: { id: 'string' },
      auth: authenticated(),
      handler: async (ctx, input) => {
        const files = ctx.db.table('files');
        const row = await files.get(input.id);
        if (!row) throw new Error(`Record not found: files/${input.id}`);
        await files.delete(row.id);
        await ctx.storage.delete(row.key);
      },
    }),
  },
  endpoints: {
    // Upload: the raw request body is the file. The row is the record of ownership.
    'POST /api/files': endpoint(async (request, ctx) => {
      const bytes = new Uint8Array(await request.arrayBuffer());
      const contentType = request.headers.get('content-type') || 'application/octet-stream';
      const key = newKey();
      const receipt = await ctx.storage.put(key, bytes, { contentType });
      const row = await ctx.db.table('files').insert({ key, name: cleanName(request.headers.get(NAME_HEADER)), contentType: receipt.contentType, size: receipt.size });
      return Response.json({ id: row.id, name: row.name, size: row.size }, { status: 201 });
    }, authenticated()),

    // Download: the row is looked up first, so another user's file is simply not found.
    'GET /api/files/:id': endpoint<'GET /api/files/:id'>(async (_request, ctx) => {
      const row = await ctx.db.table('files').get(ctx.params.id);
      if (!row) return new Response('Not found', { status: 404 });
      const object = await ctx.storage.get(row.key);
      if (!object) return new Response('Not found', { status: 404 });
      return new Response(object.bytes, {
        headers: {
          'content-type': object.contentType,
          'content-length': String(object.size),
          'content-disposition': `attachment; filename="${row.name}"`,
        },
      });
    }),
  },
  authPolicies: { files: ownedTable() },
});
