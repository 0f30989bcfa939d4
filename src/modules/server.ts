// `platform/server`: defineServer, queries, mutations, endpoints, guards and policies, with the
// handler context typed from the app's generated contract (tables, capabilities).

import type {
  App,
  Auth,
  Encodable,
  HttpMethod,
  InputOf,
  InputShape,
  TableName,
  TableShape,
} from './types.ts';

export type {
  Auth,
  Encodable,
  HttpMethod,
  Insert,
  InputDescriptor,
  InputOf,
  InputShape,
  JsonValue,
  Row,
  TableName,
} from './types.ts';

// ---------------------------------------------------------------------------------------------
// Tables

/** A `where` built from the columns of one index prefix. */
type ColumnsWhere<R, Columns> = Columns extends readonly unknown[]
  ? { [K in Columns[number] & keyof R]: R[K] }
  : never;

/** Every non-empty prefix of an index's column tuple. */
type Prefixes<Columns> = Columns extends readonly [...infer Init, unknown] ? Columns | Prefixes<Init> : never;

/** Each member of a union of object types, with the other members' keys forbidden (`?: never`). */
type ExactUnion<U, AllKeys extends PropertyKey = U extends unknown ? keyof U : never> = U extends unknown
  ? U & { [K in Exclude<AllKeys, keyof U>]?: never }
  : never;

type IsTuple<T> = T extends readonly unknown[] ? (number extends T['length'] ? false : true) : false;

/**
 * An equality filter: `{ id }`, or the columns of a declared prefix of a declared index, in order.
 * Before a contract exists (index lists not known as tuples) any partial row is accepted.
 */
export type Where<T extends TableShape> =
  IsTuple<T['indexes']> extends true
    ? ExactUnion<{ id: string } | ColumnsWhere<T['row'], Prefixes<T['indexes'][number]>>>
    : { id: string } | Partial<T['row']>;

/** Options of `find` and `count`. */
export type FindOptions<T extends TableShape> = { where: Where<T>; limit?: number };

/** Options of `page`: pass `cursor` back exactly as the previous page returned it. */
export type PageOptions<T extends TableShape> = { where: Where<T>; limit?: number; cursor?: string };

/** One page of rows. `cursor === null` is the only end condition. */
export type Page<R> = { rows: R[]; cursor: string | null };

/** The patch `update` accepts: any subset of the insertable fields, never `id`. */
export type Patch<T extends TableShape> = Partial<Omit<T['insert'], 'id'>>;

/**
 * The read half of a table handle (`ctx.db.table(name)` in a query). An interface on purpose: a
 * handle is not encodable, so returning it from a handler is a type error.
 */
export interface TableReader<T extends TableShape = App['tables'][TableName]> {
  /** Every row (up to the `queryRows` budget), ordered by `createdAt` then `id`. */
  all(): Promise<T['row'][]>;
  /** The row with this id, or null. */
  get(id: string): Promise<T['row'] | null>;
  /** Rows equal to `where` (default limit 100 or `queryRows`, whichever is lower). */
  find(options: FindOptions<T>): Promise<T['row'][]>;
  /** The first row equal to `where`, or null. */
  first(options: { where: Where<T> }): Promise<T['row'] | null>;
  /** Keyset paging over `(createdAt, id)`. */
  page(options: PageOptions<T>): Promise<Page<T['row']>>;
  /** How many rows equal `where`; with `limit`, saturates at it (`limit: 1` is an existence check). */
  count(options: FindOptions<T>): Promise<number>;
}

/** The full table handle, in mutations and endpoints. */
export interface TableWriter<T extends TableShape = App['tables'][TableName]> extends TableReader<T> {
  /** Inserts a row; the runtime mints `id` (unless the table's `idSource` is `application`), `createdAt`, `updatedAt`. */
  insert(value: T['insert']): Promise<T['row']>;
  /** Merges `patch` shallowly over the row; throws `Record not found: <table>/<id>` when absent. */
  update(id: string, patch: Patch<T>): Promise<T['row']>;
  /** Deletes the row; throws `Record not found: <table>/<id>` when absent. */
  delete(id: string): Promise<void>;
}

/** `ctx.db` in a query. */
export interface DatabaseReader {
  table<N extends TableName>(name: N): TableReader<App['tables'][N]>;
}

/** `ctx.db` in a mutation or endpoint. */
export interface DatabaseWriter {
  table<N extends TableName>(name: N): TableWriter<App['tables'][N]>;
}

// ---------------------------------------------------------------------------------------------
// Storage

/** A stored object's metadata (`head`, `list`). An interface: pick out plain fields to return it. */
export interface StoredObjectMetadata {
  key: string;
  size: number;
  /** `application/octet-stream` when none was set. */
  contentType: string;
  uploadedAt: Date;
}

/** A stored object with its bytes (`get`). */
export interface StoredObject extends StoredObjectMetadata {
  /** ArrayBuffer-backed, so it can be a Response body as it is. */
  bytes: Uint8Array<ArrayBuffer>;
}

/** What `put` answers. An interface: a receipt must not be returned directly from a handler. */
export interface StorageReceipt {
  key: string;
  size: number;
  contentType: string;
  uploadedAt: Date;
}

/** Options of `list`. */
export type ListOptions = { prefix?: string; cursor?: string; limit?: number };

/** One page of `list`. `cursor === null` is the only end condition. */
export type ObjectList = { objects: StoredObjectMetadata[]; cursor: string | null };

/** `ctx.storage` in a query: the read half. */
export interface StorageReader {
  /** The whole object with its bytes, or null. Charges its size to `readBytes`. */
  get(key: string): Promise<StoredObject | null>;
  /** The object's metadata, or null. */
  head(key: string): Promise<StoredObjectMetadata | null>;
  /** Up to `limit` (default 100, at most 1000) objects under `prefix`. */
  list(options?: ListOptions): Promise<ObjectList>;
}

/** `ctx.storage` in a mutation or endpoint. */
export interface StorageWriter extends StorageReader {
  /** Stores the object, replacing any existing one. */
  put(key: string, value: Uint8Array | string, options?: { contentType?: string }): Promise<StorageReceipt>;
  /** Deletes the object; succeeds when the key holds nothing. */
  delete(key: string): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Handler contexts

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type Access = 'read' | 'write';

type DatabaseSlot<A extends Access, C> = 'database' extends C
  ? { readonly db: A extends 'write' ? DatabaseWriter : DatabaseReader }
  : unknown;

type StorageSlot<A extends Access, C> = 'storage' extends C
  ? { readonly storage: A extends 'write' ? StorageWriter : StorageReader }
  : unknown;

/**
 * A handler context for the given access and capabilities. `db` and `storage` exist only when the
 * capability is declared, so using an undeclared one is a type error.
 */
export type HandlerCtx<A extends Access, Capabilities extends string = App['capabilities']> = Simplify<
  {
    readonly auth: Auth;
    readonly env: Readonly<Record<string, string | undefined>>;
  } & DatabaseSlot<A, Capabilities> &
    StorageSlot<A, Capabilities>
>;

/** The context of a query handler: read-only database and storage. */
export type QueryCtx = HandlerCtx<'read'>;

/** The context of a mutation handler: the full database and storage, in one transaction. */
export type MutationCtx = HandlerCtx<'write'>;

/** The path parameter names of a route key such as `'GET /api/files/:id'`. */
type ParamNames<Path extends string> = Path extends `${infer Head}/${infer Tail}`
  ? SegmentParam<Head> | ParamNames<Tail>
  : SegmentParam<Path>;

type SegmentParam<Segment extends string> = Segment extends `:${infer Name}` ? Name : never;

/** `ctx.params` for a route key; a string-to-string map when the route is not known. */
export type RouteParams<Route extends string> = string extends Route
  ? Record<string, string>
  : Route extends `${string} ${infer Path}`
    ? { [K in ParamNames<Path>]: string }
    : Record<string, string>;

/** The context of an endpoint handler: write-capable, plus the matched, percent-decoded `params`. */
export type EndpointCtx<Route extends string = string> = Simplify<
  HandlerCtx<'write'> & { readonly params: RouteParams<Route> }
>;

// ---------------------------------------------------------------------------------------------
// Descriptors

const BRAND = Symbol.for('platform.descriptor');

/** The `kind` of every descriptor object this module creates. */
export type DescriptorKind =
  | 'query'
  | 'mutation'
  | 'endpoint'
  | 'stream'
  | 'authenticated'
  | 'memberOf'
  | 'ownedTable'
  | 'workspaceTable';

function describe<T extends { kind: DescriptorKind }>(value: T): T {
  return Object.assign(value, { [BRAND]: value.kind });
}

/**
 * True when `value` is a descriptor of that kind made by any copy of this module (checked by brand).
 *
 * @example
 * if (isDescriptor(definition.queries?.['todos.list'], 'query')) run(definition.queries['todos.list']);
 */
export function isDescriptor(value: unknown, kind: DescriptorKind): value is { kind: DescriptorKind } {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === kind;
}

/** A guard that refuses callers who are not signed in as users. */
export type AuthenticatedGuard = { readonly kind: 'authenticated' };

/** A guard that refuses callers who are not members of the workspace named by input field `F`. */
export type MemberOfGuard<F extends string = string> = { readonly kind: 'memberOf'; readonly field: F };

/** An operation guard; `F` is the input field a `memberOf` guard may name. */
export type Guard<F extends string = string> = AuthenticatedGuard | MemberOfGuard<F>;

/** `auth` of an operation: one guard or a list of guards. */
export type AuthRequirement<F extends string = string> = Guard<F> | readonly Guard<F>[];

/**
 * Refuses callers that are not provisioned users (guests are refused).
 *
 * @example
 * query({ input: {}, auth: authenticated(), handler: (ctx) => ctx.auth.appUserId })
 */
export function authenticated(): AuthenticatedGuard {
  return describe({ kind: 'authenticated' });
}

/**
 * Refuses callers whose `workspaceIds` do not contain the value of input field `field`.
 * The field must be a `'string'` field of the operation's input.
 *
 * @example
 * query({ input: { workspaceId: 'string' }, auth: memberOf('workspaceId'), handler: ... })
 */
export function memberOf<const F extends string>(field: F): MemberOfGuard<F> {
  return describe({ kind: 'memberOf', field });
}

/** A table policy that keeps each row private to the user in its `ownerId`. */
export type OwnedTablePolicy = { readonly kind: 'ownedTable' };

/** A table policy that keeps rows inside the caller's workspaces (field `workspaceId`). */
export type WorkspaceTablePolicy = { readonly kind: 'workspaceTable' };

/** A table policy under `authPolicies`. */
export type Policy = OwnedTablePolicy | WorkspaceTablePolicy;

/**
 * Owner-scoped table: insert stamps `ownerId` with the caller's `appUserId`, reads see only the
 * caller's rows. The table needs a required string field `ownerId`.
 *
 * @example
 * defineServer({ authPolicies: { todos: ownedTable() } })
 */
export function ownedTable(): OwnedTablePolicy {
  return describe({ kind: 'ownedTable' });
}

/**
 * Workspace-scoped table: reads see only rows of the caller's workspaces; writes into another
 * workspace are refused. The table needs a required string field `workspaceId`.
 *
 * @example
 * defineServer({ authPolicies: { notes: workspaceTable() } })
 */
export function workspaceTable(): WorkspaceTablePolicy {
  return describe({ kind: 'workspaceTable' });
}

/**
 * What a handler may return: encodable values, or nothing. Interfaces, class instances, Map, Set,
 * read-only arrays, storage receipts and table handles are not assignable.
 */
export type HandlerResult = Encodable | void | undefined;

/** The input fields a `memberOf` guard may name: the `'string'` fields. */
type StringFields<I> = { [K in keyof I]: I[K] extends 'string' ? K : never }[keyof I] & string;

/** What `query()` accepts. */
export type QueryDefinition<I extends InputShape, R extends HandlerResult> = {
  /** The input schema, validated before the handler runs (every field required, no extra keys). */
  input: I;
  /** Guards that run before the handler. */
  auth?: AuthRequirement<NoInfer<StringFields<I>>>;
  handler: (ctx: QueryCtx, input: InputOf<I>) => R | Promise<R>;
};

/** What `mutation()` accepts. */
export type MutationDefinition<I extends InputShape, R extends HandlerResult> = {
  input: I;
  auth?: AuthRequirement<NoInfer<StringFields<I>>>;
  handler: (ctx: MutationCtx, input: InputOf<I>) => R | Promise<R>;
};

/** A registered query, as `query()` returns it. */
export interface QueryDescriptor<I extends InputShape = InputShape, R = unknown> {
  readonly kind: 'query';
  readonly input: I;
  readonly auth: readonly Guard[];
  readonly handler: (ctx: QueryCtx, input: InputOf<I>) => R | Promise<R>;
}

/** A registered mutation, as `mutation()` returns it. */
export interface MutationDescriptor<I extends InputShape = InputShape, R = unknown> {
  readonly kind: 'mutation';
  readonly input: I;
  readonly auth: readonly Guard[];
  readonly handler: (ctx: MutationCtx, input: InputOf<I>) => R | Promise<R>;
}

/**
 * Declares a query: a read-only handler over validated input.
 *
 * @example
 * export default defineServer({
 *   queries: {
 *     'todos.list': query({ input: {}, handler: (ctx) => ctx.db.table('todos').all() }),
 *   },
 * });
 */
export function query<const I extends InputShape, R extends HandlerResult>(
  definition: QueryDefinition<I, R>,
): QueryDescriptor<I, R> {
  return describe({ kind: 'query', input: definition.input, auth: guardList(definition.auth), handler: definition.handler });
}

/**
 * Declares a mutation: a handler whose writes commit together when it returns, or not at all.
 *
 * @example
 * 'todos.add': mutation({
 *   input: { title: 'string' },
 *   auth: authenticated(),
 *   handler: async (ctx, { title }) => (await ctx.db.table('todos').insert({ title })).id,
 * })
 */
export function mutation<const I extends InputShape, R extends HandlerResult>(
  definition: MutationDefinition<I, R>,
): MutationDescriptor<I, R> {
  return describe({ kind: 'mutation', input: definition.input, auth: guardList(definition.auth), handler: definition.handler });
}

function guardList(auth: AuthRequirement | undefined): readonly Guard[] {
  if (auth === undefined) return [];
  return Array.isArray(auth) ? [...(auth as readonly Guard[])] : [auth as Guard];
}

/** A streamed endpoint response, made by `stream()`. */
export interface StreamResponse {
  readonly kind: 'stream';
  readonly body?: ReadableStream<Uint8Array>;
  readonly upstream?: Response;
  readonly headers?: HeadersInit;
}

/** What an endpoint handler may return. */
export type EndpointResult = Response | StreamResponse;

/** An endpoint handler for route key `Route`. */
export type EndpointHandler<Route extends string = string> = (
  request: Request,
  ctx: EndpointCtx<Route>,
) => EndpointResult | Promise<EndpointResult>;

// A type-only tag carrying the route an endpoint was typed for; never present at run time.
declare const routeTag: unique symbol;

/** A registered endpoint, as `endpoint()` returns it. */
export interface EndpointDescriptor<Route extends string = string> {
  readonly kind: 'endpoint';
  readonly handler: EndpointHandler<Route>;
  readonly auth: readonly Guard[];
  readonly [routeTag]: Route;
}

/**
 * Declares a raw HTTP endpoint, registered under `'<METHOD> /api/...'` in `endpoints`. The optional
 * type argument, equal to the route key, types `ctx.params`; registering it under another key fails to compile.
 *
 * @example
 * 'GET /api/files/:id': endpoint<'GET /api/files/:id'>(async (request, ctx) => {
 *   const row = await ctx.db.table('files').get(ctx.params.id);
 *   return row ? new Response(row.name) : new Response('not found', { status: 404 });
 * }, authenticated())
 */
export function endpoint<Route extends string = string>(
  handler: EndpointHandler<Route>,
  auth?: AuthRequirement<never>,
): EndpointDescriptor<Route> {
  const descriptor = describe({ kind: 'endpoint', handler, auth: guardList(auth) });
  return descriptor as unknown as EndpointDescriptor<Route>;
}

/**
 * Streams a response body instead of buffering it: a byte stream with optional headers, or an
 * upstream response (status and headers carried across). Admitted only if the handler wrote nothing.
 *
 * @example
 * 'GET /api/feed': endpoint(async () => stream(new Blob(['hello']).stream(), { headers: { 'content-type': 'text/plain' } }))
 */
export function stream(body: ReadableStream<Uint8Array>, init?: { headers?: HeadersInit }): StreamResponse;
export function stream(upstream: Response): StreamResponse;
export function stream(source: ReadableStream<Uint8Array> | Response, init?: { headers?: HeadersInit }): StreamResponse {
  if (typeof (source as ReadableStream<Uint8Array>).getReader === 'function') {
    const body = source as ReadableStream<Uint8Array>;
    return describe(init?.headers === undefined ? { kind: 'stream', body } : { kind: 'stream', body, headers: init.headers });
  }
  return describe({ kind: 'stream', upstream: source as Response });
}

// ---------------------------------------------------------------------------------------------
// defineServer

/** Any query descriptor, whatever its input and result. */
export type AnyQueryDescriptor = {
  readonly kind: 'query';
  readonly input: InputShape;
  readonly auth: readonly Guard[];
  readonly handler: (...args: never[]) => unknown;
};

/** Any mutation descriptor. */
export type AnyMutationDescriptor = {
  readonly kind: 'mutation';
  readonly input: InputShape;
  readonly auth: readonly Guard[];
  readonly handler: (...args: never[]) => unknown;
};

/** Any endpoint descriptor. */
export type AnyEndpointDescriptor = {
  readonly kind: 'endpoint';
  readonly handler: (...args: never[]) => unknown;
  readonly auth: readonly Guard[];
};

/** The shape of `defineServer`'s argument. */
export type ServerDefinition = {
  queries?: { readonly [name: string]: AnyQueryDescriptor };
  mutations?: { readonly [name: string]: AnyMutationDescriptor };
  endpoints?: { readonly [route: string]: AnyEndpointDescriptor };
  authPolicies?: { readonly [table: string]: Policy };
};

type ServerKey = keyof ServerDefinition;

/**
 * What a table must declare for the policy put on it: `ownedTable()` a required string `ownerId`,
 * `workspaceTable()` a required string `workspaceId`. Only the policy actually used is checked, so
 * the error names exactly what is missing.
 */
type PolicyCheck<T extends string, Used> = string extends TableName
  ? unknown
  : T extends TableName
    ? Used extends OwnedTablePolicy
      ? App['tables'][T]['row'] extends { ownerId: string }
        ? unknown
        : `ownedTable() needs a required string field ownerId on table ${T}`
      : Used extends WorkspaceTablePolicy
        ? App['tables'][T]['row'] extends { workspaceId: string }
          ? unknown
          : `workspaceTable() needs a required string field workspaceId on table ${T}`
        : unknown
    : `authPolicies names ${T}, which is not a table declared in app.manifest.json`;

type PolicyChecks<P> = { [T in keyof P]: PolicyCheck<T & string, P[T]> };

type EndpointChecks<E> = {
  [K in keyof E]: E[K] extends { readonly [routeTag]: infer Route }
    ? string extends Route
      ? unknown
      : [K] extends [Route]
        ? unknown
        : `endpoint<'${Route & string}'> is registered under '${K & string}'; the type argument must equal the route key`
    : unknown;
};

/** Compile-time checks of a server definition that its plain shape cannot express. */
type ServerChecks<D> = { [K in Exclude<keyof D, ServerKey>]: `defineServer has no key ${K & string}` } & {
  endpoints?: D extends { readonly endpoints: infer E } ? EndpointChecks<E> : unknown;
  authPolicies?: D extends { readonly authPolicies: infer P } ? PolicyChecks<P> : unknown;
};

/**
 * The server entrypoint's default export. Read statically by the compiler, so pass a literal object.
 * Returns its argument, so `typeof` the default export carries every operation's types.
 *
 * @example
 * export default defineServer({
 *   queries: { 'todos.list': query({ input: {}, handler: (ctx) => ctx.db.table('todos').all() }) },
 *   mutations: { 'todos.add': mutation({ input: { title: 'string' }, handler: (ctx, input) => { ... } }) },
 *   endpoints: { 'GET /api/health': endpoint(() => new Response('ok')) },
 *   authPolicies: { todos: ownedTable() },
 * });
 */
export function defineServer<const D extends ServerDefinition>(definition: D & ServerChecks<NoInfer<D>>): D {
  return definition;
}
