// The bench's data app (bench/data-workerd.ts): a declared index (items.byTag) and an owned table (notes), read at size.
import { defineServer, ownedTable, query } from 'platform/server';

export default defineServer({
  queries: {
    // The baseline: a trivial query, the same round trip with no read.
    'bench.ping': query({ input: {}, handler: async () => 1 }),
    // Who the caller is: the bench stamps the owned rows with it.
    'bench.me': query({ input: {}, handler: async (ctx) => ctx.auth.appUserId }),
    'items.by_tag': query({ input: { tag: 'string' }, handler: async (ctx, input) => (await ctx.db.table('items').find({ where: { tag: input.tag }, limit: 10 })).length }),
    'notes.by_tag': query({ input: { tag: 'string' }, handler: async (ctx, input) => (await ctx.db.table('notes').find({ where: { tag: input.tag }, limit: 10 })).length }),
    'items.page': query({ input: { tag: 'string' }, handler: async (ctx, input) => (await ctx.db.table('items').page({ where: { tag: input.tag }, limit: 100 })).rows.length }),
    'items.count': query({ input: { tag: 'string' }, handler: async (ctx, input) => ctx.db.table('items').count({ where: { tag: input.tag }, limit: 1 }) }),
  },
  authPolicies: { notes: ownedTable() },
});
