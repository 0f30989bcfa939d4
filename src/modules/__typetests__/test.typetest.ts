// Type tests of `platform/test` against the fixture contract in app.d.ts and fixture-server.ts.

import { as, expect, expectFailure, fetch, mutation, query, setEnv, test } from 'platform/test';
import type { Caller, RuntimeErrorShape } from 'platform/test';
import type { Row } from 'platform/types';

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assert = <T extends true>(): void => {};

type Todo = Row<'todos'>;

test('owners see only their own rows', async () => {
  await as('alice').mutation('todos.add', { title: 'milk', due: new Date() });
  const mine = await as('alice').query('todos.list', {});
  assert<Equals<typeof mine, Todo[]>>();
  expect(mine).toHaveLength(1);
  expect(await as('bob').query('todos.list', {})).toEqual([]);

  const failure = await expectFailure(as('guest').mutation('todos.add', { title: 'x', due: new Date() }));
  assert<Equals<typeof failure, RuntimeErrorShape>>();
  expect(failure.code).toBe('operation_failed');

  const id = await mutation('todos.add', { title: 'x', due: new Date() });
  assert<Equals<typeof id, string>>();
  const got = await query('todos.get', { id });
  expect(got).toMatchObject({ title: 'x' });
  expect(got).not.toBeNull();
  expect([1, 2]).toContain(2);
  expect('abc').toContain('b');
  expect(2).toBeGreaterThan(1);
  expect(1n).toBeLessThanOrEqual(1n);
  expect(new Date()).toBeInstanceOf(Date);
  expect(() => JSON.parse('{')).toThrow(SyntaxError);
  expect(() => JSON.parse('{')).toThrow(/JSON/);
  expect(() => 1).not.toThrow();

  setEnv({ GREETING: 'hello' });
  const response = await fetch('POST /api/files', { body: 'hello' });
  assert<Equals<typeof response, Response>>();
  await fetch(new Request('http://app.test/api/files'));
  await as('bob').fetch('/api/files');
  assert<Equals<ReturnType<typeof as>, Caller>>();

  // @ts-expect-error not a persona
  as('mallory');
  // @ts-expect-error not a registered query name
  await query('todos.lisst', {});
  // @ts-expect-error not a registered mutation name
  await as('bob').mutation('todos.list', {});
  // @ts-expect-error wrong input shape
  await as('bob').query('todos.get', { id: 1 });
  // @ts-expect-error missing input field
  await mutation('todos.add', { title: 'x' });
  // @ts-expect-error setEnv takes strings
  setEnv({ PORT: 8080 });
  // @ts-expect-error a fetch target is '<METHOD> /path' or '/path'
  await fetch('api/files');
  // @ts-expect-error toHaveLength takes a number
  expect(mine).toHaveLength('1');
});
