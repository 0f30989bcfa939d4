import { defineServer, endpoint, query, stream } from 'platform/server';
import { MAX_COUNT } from '../shared/count';

const encoder = new TextEncoder();

export default defineServer({
  queries: {
    'visits.count': query({ input: { path: 'string' }, handler: async (ctx, input) => ctx.db.table('visits').count({ where: { path: input.path } }) }),
  },
  endpoints: {
    // Parameters arrive percent-decoded; they may hold "/" or "..", so use them as data, never as paths.
    'GET /api/greet/:name': endpoint<'GET /api/greet/:name'>(async (_request, ctx) => {
      const greeting = ctx.env.GREETING ?? 'Hello';
      return Response.json({ message: `${greeting}, ${ctx.params.name}!` });
    }),

    // The request body, read whole (bounded by budgets.requestBytes), echoed with its type.
    'POST /api/echo': endpoint(async (request) => {
      const body = await request.arrayBuffer();
      return new Response(body, { headers: { 'content-type': request.headers.get('content-type') ?? 'application/octet-stream' } });
    }),

    // An endpoint write: one transaction, like a mutation, but clients refresh with invalidateQueries.
    'POST /api/visits/:path': endpoint<'POST /api/visits/:path'>(async (_request, ctx) => {
      await ctx.db.table('visits').insert({ path: ctx.params.path });
      const count = await ctx.db.table('visits').count({ where: { path: ctx.params.path } });
      return Response.json({ path: ctx.params.path, count }, { status: 201 });
    }),

    // A streamed response: allowed because this handler writes nothing, and it takes a liveConnections slot.
    'GET /api/count/:n': endpoint<'GET /api/count/:n'>(async (_request, ctx) => {
      const n = Math.min(Number(ctx.params.n) || 0, MAX_COUNT);
      let i = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (i >= n) return controller.close();
          i += 1;
          controller.enqueue(encoder.encode(`${i}\n`));
        },
      });
      return stream(body, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
    }),
  },
});
