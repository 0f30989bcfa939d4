import { as, expect, expectFailure, test } from 'platform/test';

test('members of a workspace share its cards', async () => {
  await as('alice').mutation('cards.add', { workspaceId: 'ws-team', title: 'Plan the launch' });
  const seenByBob = await as('bob').query('cards.list', { workspaceId: 'ws-team' });
  expect(seenByBob.map((c) => c.title)).toEqual(['Plan the launch']);
  expect(seenByBob[0]!.column).toBe('todo');
});

test('memberOf refuses a caller outside the workspace', async () => {
  await as('alice').mutation('cards.add', { workspaceId: 'ws-alice', title: 'Private' });
  const failure = await expectFailure(as('bob').query('cards.list', { workspaceId: 'ws-alice' }));
  expect(failure.code).toBe('operation_failed');
  expect(failure.status).toBe(400);
  expect(await as('alice').query('me.workspaces', {})).toEqual(['ws-team', 'ws-alice']);
  expect(await as('guest').query('me.workspaces', {})).toEqual([]);
});

test('the policy alone filters: each caller sees the cards of their own workspaces', async () => {
  await as('alice').mutation('cards.add', { workspaceId: 'ws-team', title: 'Shared' });
  await as('alice').mutation('cards.add', { workspaceId: 'ws-alice', title: 'Private' });
  expect((await as('alice').query('cards.everywhere', {})).map((c) => c.title)).toEqual(['Shared', 'Private']);
  expect((await as('bob').query('cards.everywhere', {})).map((c) => c.title)).toEqual(['Shared']);
  expect(await as('guest').query('cards.everywhere', {})).toEqual([]);
});

test('cards move through the columns, and only inside the caller\'s workspaces', async () => {
  const { id } = await as('alice').mutation('cards.add', { workspaceId: 'ws-alice', title: 'Mine' });
  await as('alice').mutation('cards.move', { id, column: 'doing' });
  expect((await as('alice').query('cards.list', { workspaceId: 'ws-alice' }))[0]!.column).toBe('doing');
  const moved = await expectFailure(as('bob').mutation('cards.move', { id, column: 'done' }));
  expect(moved.message).toBe(`Record not found: cards/${id}`);
  const bad = await expectFailure(as('alice').mutation('cards.move', { id, column: 'archive' }));
  expect(bad.message).toBe('"archive" is not a column.');
});

test('guests cannot add cards', async () => {
  const failure = await expectFailure(as('guest').mutation('cards.add', { workspaceId: 'ws-team', title: 'x' }));
  expect(failure.code).toBe('operation_failed');
});
