// `platform/types`: the value types every app module shares, and the `Register` hook through which
// the compiler's generated declaration file tells the modules what this app's tables and operations are.

/**
 * Augmented by the generated contract (`.platform/app.d.ts`) with `app`, `server` and `operations`.
 * Empty until the compiler has generated it; every derived type then falls back to a permissive shape.
 */
export interface Register {}

/** Any JSON-shaped value: what a `'json'` input or field holds. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * What may travel between a handler and its caller. The object member is an index signature on
 * purpose: only type aliases and object literal types are assignable to it, so interfaces, class
 * instances, Map, Set and read-only arrays are refused, exactly as the runtime's result rules say.
 */
export type Encodable =
  | null
  | boolean
  | number
  | string
  | Date
  | Uint8Array
  | Encodable[]
  | { [key: string]: Encodable | undefined };

/** One field of an operation's `input` schema. */
export type InputDescriptor =
  | 'string'
  | 'number'
  | 'boolean'
  | 'datetime'
  | 'bytes'
  | 'json'
  | { readonly [key: string]: InputDescriptor };

/** An operation's whole `input` schema: `{}` means no input. */
export type InputShape = { readonly [key: string]: InputDescriptor };

/** The value a handler receives for an input descriptor. `{}` maps to `Record<string, never>`. */
export type InputOf<D> = D extends 'string'
  ? string
  : D extends 'number'
    ? number
    : D extends 'boolean'
      ? boolean
      : D extends 'datetime'
        ? Date
        : D extends 'bytes'
          ? Uint8Array
          : D extends 'json'
            ? JsonValue
            : D extends object
              ? [keyof D] extends [never]
                ? Record<string, never>
                : { -readonly [K in keyof D]: InputOf<D[K]> }
              : never;

/** The three fixed identities of local modes (dev, preview, test). */
export type Persona = 'alice' | 'bob' | 'guest';

/** `ctx.auth`: the caller's identity inside this application. */
export type Auth = {
  readonly appUserId: string;
  readonly kind: 'guest' | 'user';
  readonly roles: readonly string[];
  readonly permissions: readonly string[];
  readonly workspaceIds: readonly string[];
  readonly sessionId?: string;
  /** @deprecated Always equal to `appUserId`. */
  readonly id: string;
};

/**
 * A workspace as the page of a signed-in person sees it (`useWorkspaces`): its opaque id (the value in
 * `ctx.auth.workspaceIds`), the name its creator gave it and how many members it has.
 */
export type WorkspaceInfo = { id: string; name: string; members: number };

/**
 * Who the page's visitor is, as `useAuth` gives it (`GET /__platform/auth/me`): never a name, email or
 * account id. Hosted, a guest until they sign in; in the playground, the preview's persona.
 */
export type PageAuth = {
  kind: 'guest' | 'user';
  /** The same `appUserId` the app's handlers see in `ctx.auth`. */
  appUserId?: string;
  /** The workspaces the visitor belongs to (none for a guest). */
  workspaces?: WorkspaceInfo[];
};

/** A link that lets one more person join a workspace (`inviteToWorkspace`). */
export type WorkspaceInvite = { url: string; token: string; expiresAt: Date };

/** A runtime error as its body carries it (`{"protocol", "error": …}`): the one spelling of a failed call's error. */
export type RuntimeErrorInfo = { code: string; message: string; errorId: string };

/** What a caller learns about a failed operation: the error and its HTTP status. */
export type RuntimeErrorShape = RuntimeErrorInfo & { status: number };

/** Tables a call read or wrote, and whether it read or wrote the object store. */
export type TableSet = { tables: string[]; storage: boolean };

/** The HTTP methods a raw endpoint may be registered for. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'HEAD';

/** The fields the runtime puts on every row. */
export type RowBase = { id: string; createdAt: Date; updatedAt: Date };

/** What the generated contract declares per table. */
export type TableShape = {
  row: RowBase;
  insert: object;
  /** Declared index column lists, as tuples (field-name columns only). */
  indexes: readonly (readonly string[])[];
};

/** What the generated contract declares about the app (`Register['app']`). */
export type AppShape = {
  capabilities: 'database' | 'storage';
  tables: { [name: string]: TableShape };
  policies: { [table: string]: 'ownedTable' | 'workspaceTable' };
};

/** The app before any contract was generated: everything allowed, loosely typed. */
export type PermissiveApp = {
  capabilities: 'database' | 'storage';
  tables: Record<
    string,
    {
      row: Record<string, any> & RowBase;
      insert: Record<string, any>;
      indexes: string[][];
    }
  >;
  policies: Record<string, 'ownedTable' | 'workspaceTable'>;
};

/**
 * The registered app, or the permissive default when nothing is registered. A registered app that
 * does not match `AppShape` (a stale or hand-edited contract) becomes `never`, so every table and
 * capability use fails loudly instead of silently falling back to the permissive default.
 */
export type App = Register extends { app: infer A } ? (A extends AppShape ? A : never) : PermissiveApp;

/** The capabilities this app declares (`never` when none). */
export type Capability = App['capabilities'];

/** Declared table names. */
export type TableName = keyof App['tables'] & string;

/** A row of table `N`, as reads return it. */
export type Row<N extends TableName> = App['tables'][N]['row'];

/** What `insert` on table `N` accepts. */
export type Insert<N extends TableName> = App['tables'][N]['insert'];

/** The server definition's type (`typeof` the default export of the server entrypoint), if registered. */
type RegisteredServer = Register extends { server: infer S } ? S : undefined;

type RegisteredOperations = Register extends { operations: infer O } ? O : undefined;

/** Names the client and the tests may pass as a query: every string until a contract is generated. */
export type QueryNames = RegisteredOperations extends { queries: infer Q extends string } ? Q : string;

/** Names the client and the tests may pass as a mutation. */
export type MutationNames = RegisteredOperations extends { mutations: infer M extends string } ? M : string;

type OperationOf<Group extends 'queries' | 'mutations', N> = RegisteredServer extends {
  readonly [G in Group]?: infer Ops;
}
  ? N extends keyof NonNullable<Ops>
    ? NonNullable<Ops>[N]
    : undefined
  : undefined;

type InputOfOperation<Op> = Op extends { readonly input: infer I } ? InputOf<I> : Record<string, unknown>;

type ResultOfOperation<Op> = Op extends { readonly handler: (...args: never[]) => infer R } ? Awaited<R> : any;

/** The input a caller passes to query `N`. */
export type QueryInput<N extends string> = InputOfOperation<OperationOf<'queries', N>>;

/** What query `N` resolves to (its handler's awaited return type). */
export type QueryResult<N extends string> = ResultOfOperation<OperationOf<'queries', N>>;

/** The input a caller passes to mutation `N`. */
export type MutationInput<N extends string> = InputOfOperation<OperationOf<'mutations', N>>;

/** What mutation `N` resolves to. */
export type MutationResult<N extends string> = ResultOfOperation<OperationOf<'mutations', N>>;
