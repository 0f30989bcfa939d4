import { expect, query, test } from 'platform/test';

test('greeting.hello greets by name', async () => {
  expect(await query('greeting.hello', { name: 'Ada' })).toBe('Hello, Ada!');
});
