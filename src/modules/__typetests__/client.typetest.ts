// Type tests of `platform/client` against the fixture contract in app.d.ts and fixture-server.ts.

import {
  RuntimeError,
  createWorkspace,
  getAuth,
  installClientHost,
  inviteToWorkspace,
  joinWorkspace,
  leaveWorkspace,
  signIn,
  signOut,
  useAuth,
  useWorkspaces,
  invalidateQueries,
  isRuntimeError,
  mutation,
  query,
  useMutation,
  useQuery,
} from 'platform/client';
import type { ClientHost, PageAuth, QueryState, WorkspaceInfo, WorkspaceInvite } from 'platform/client';
import type { MutationNames, QueryInput, QueryNames, QueryResult, Row } from 'platform/types';

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assert = <T extends true>(): void => {};

type Todo = Row<'todos'>;
type TodoView = { id: string; title: string; done: boolean; due?: Date };

// The contract, derived from the registered server.
assert<Equals<QueryNames, 'todos.list' | 'todos.get' | 'todos.page' | 'notes.list'>>();
assert<Equals<MutationNames, 'todos.add' | 'todos.remove'>>();
assert<Equals<QueryInput<'todos.get'>, { id: string }>>();
assert<Equals<QueryInput<'todos.list'>, Record<string, never>>>();
assert<Equals<QueryResult<'todos.list'>, Todo[]>>();
assert<Equals<QueryResult<'todos.get'>, TodoView | null>>();
assert<Equals<QueryResult<'todos.page'>, { rows: Todo[]; cursor: string | null }>>();

function Component(): void {
  const list = useQuery('todos.list', {});
  assert<Equals<typeof list, QueryState<Todo[]>>>();
  assert<Equals<typeof list.data, Todo[] | undefined>>();
  assert<Equals<typeof list.error, RuntimeError | undefined>>();
  assert<Equals<typeof list.loading, boolean>>();

  const one = useQuery('todos.get', { id: 'x' });
  assert<Equals<typeof one.data, TodoView | null | undefined>>();

  // @ts-expect-error not a registered query name
  useQuery('todos.lisst', {});
  // @ts-expect-error a mutation is not a query
  useQuery('todos.add', { title: 'x', due: new Date() });
  // @ts-expect-error wrong input field
  useQuery('todos.get', { idd: 'x' });
  // @ts-expect-error wrong input type
  useQuery('todos.get', { id: 1 });
  // @ts-expect-error missing input field
  useQuery('todos.get', {});
  // @ts-expect-error `input: {}` takes no fields
  useQuery('todos.list', { extra: 1 });

  const add = useMutation('todos.add');
  assert<Equals<typeof add, (input: { title: string; due: Date }) => Promise<string>>>();
  const remove = useMutation('todos.remove');
  assert<Equals<Awaited<ReturnType<typeof remove>>, void>>();
  // @ts-expect-error not a registered mutation name
  useMutation('todos.list');
  // @ts-expect-error `due` is a datetime: a Date, not a string
  void add({ title: 'x', due: '2024-01-01' });
}
void Component;

async function plainCalls(): Promise<void> {
  const todos = await query('todos.list', {});
  assert<Equals<typeof todos, Todo[]>>();
  const id = await mutation('todos.add', { title: 'milk', due: new Date() });
  assert<Equals<typeof id, string>>();
  // @ts-expect-error not a registered query name
  await query('todos.lisst', {});
  // @ts-expect-error missing input field
  await mutation('todos.add', { title: 'milk' });
  invalidateQueries(['todos', 'notes']);

  try {
    await mutation('todos.remove', { id: 'x' });
  } catch (error) {
    if (isRuntimeError(error)) {
      assert<Equals<typeof error.status, number>>();
      assert<Equals<typeof error.code, string>>();
      assert<Equals<typeof error.errorId, string>>();
    }
  }
}
void plainCalls;

const host: ClientHost = { call: async () => null };
const uninstall: () => void = installClientHost(host);
void uninstall;

// Signing in and workspaces.
function AuthComponent(): void {
  const { auth, loading, error } = useAuth();
  assert<Equals<typeof auth, PageAuth | undefined>>();
  assert<Equals<typeof loading, boolean>>();
  assert<Equals<typeof error, RuntimeError | undefined>>();
  if (auth) assert<Equals<typeof auth.kind, 'guest' | 'user'>>();
  const { workspaces } = useWorkspaces();
  assert<Equals<typeof workspaces, WorkspaceInfo[] | undefined>>();
  // @ts-expect-error the page never learns a name
  void auth?.name;
}
void AuthComponent;

async function workspaceCalls(): Promise<void> {
  const me = await getAuth();
  assert<Equals<typeof me, PageAuth>>();
  signIn();
  signIn('/board');
  // @ts-expect-error a return path is a string
  signIn(1);
  await signOut();
  const workspace = await createWorkspace('Design');
  assert<Equals<typeof workspace, WorkspaceInfo>>();
  assert<Equals<typeof workspace, { id: string; name: string; members: number }>>();
  const invite = await inviteToWorkspace(workspace.id);
  assert<Equals<typeof invite, WorkspaceInvite>>();
  assert<Equals<typeof invite.expiresAt, Date>>();
  const joined = await joinWorkspace(invite.url);
  assert<Equals<typeof joined, WorkspaceInfo>>();
  const left = await leaveWorkspace(workspace.id);
  assert<Equals<typeof left, void>>();
}
void workspaceCalls;

