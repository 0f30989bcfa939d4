import { as, expect, expectFailure, mutation, query, test } from 'platform/test';

test('a todo added is listed for its owner', async () => {
  await mutation('todos.add', { title: '  milk  ' });
  const todos = await query('todos.list', {});
  expect(todos).toHaveLength(1);
  expect(todos[0]).toMatchObject({ title: 'milk', done: false });
  expect(todos[0]!.createdAt).toBeInstanceOf(Date);
});

test('owners see only their own todos', async () => {
  await as('alice').mutation('todos.add', { title: 'milk' });
  await as('bob').mutation('todos.add', { title: 'bread' });
  expect((await as('alice').query('todos.list', {})).map((t) => t.title)).toEqual(['milk']);
  expect((await as('bob').query('todos.list', {})).map((t) => t.title)).toEqual(['bread']);
  expect(await as('guest').query('todos.list', {})).toEqual([]);
});

test('guests cannot add todos', async () => {
  const failure = await expectFailure(as('guest').mutation('todos.add', { title: 'x' }));
  expect(failure.code).toBe('operation_failed');
  expect(failure.status).toBe(400);
});

test('an empty title is refused with the shared rule', async () => {
  const failure = await expectFailure(mutation('todos.add', { title: '   ' }));
  expect(failure.message).toBe('A todo needs a title.');
});

test('toggling, counting and clearing', async () => {
  const { id } = await mutation('todos.add', { title: 'milk' });
  await mutation('todos.add', { title: 'bread' });
  expect(await query('todos.remaining', {})).toBe(2);
  await mutation('todos.toggle', { id });
  expect(await query('todos.remaining', {})).toBe(1);
  expect(await mutation('todos.clear', {})).toEqual({ removed: 1 });
  expect((await query('todos.list', {})).map((t) => t.title)).toEqual(['bread']);
});

test("another user's todo cannot be toggled or removed, and nothing says it exists", async () => {
  const { id } = await as('alice').mutation('todos.add', { title: 'secret' });
  const toggled = await expectFailure(as('bob').mutation('todos.toggle', { id }));
  const removed = await expectFailure(as('bob').mutation('todos.remove', { id }));
  expect(toggled.message).toBe(`Record not found: todos/${id}`);
  expect(removed.message).toBe(`Record not found: todos/${id}`);
  expect(await as('alice').query('todos.remaining', {})).toBe(1);
});
