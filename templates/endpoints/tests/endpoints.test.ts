import { as, expect, fetch, query, setEnv, test } from 'platform/test';

test('route parameters arrive percent-decoded', async () => {
  const response = await fetch('GET /api/greet/J%C3%BCrgen%2F..');
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ message: 'Hello, Jürgen/..!' });
});

test('ctx.env is set per test with setEnv', async () => {
  setEnv({ GREETING: 'Hej' });
  expect(await (await fetch('GET /api/greet/Ada')).json()).toEqual({ message: 'Hej, Ada!' });
});

test('a request body is echoed with its content type', async () => {
  const response = await fetch('POST /api/echo', { body: 'ping', headers: { 'content-type': 'text/plain' } });
  expect(response.headers.get('content-type')).toBe('text/plain');
  expect(await response.text()).toBe('ping');
});

test('an endpoint write commits, and queries see it', async () => {
  const first = await as('bob').fetch('POST /api/visits/home');
  expect(first.status).toBe(201);
  expect(await first.json()).toEqual({ path: 'home', count: 1 });
  await as('guest').fetch('POST /api/visits/home');
  expect(await query('visits.count', { path: 'home' })).toBe(2);
});

test('a streamed response arrives in full', async () => {
  const response = await fetch('GET /api/count/5');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  expect(await response.text()).toBe('1\n2\n3\n4\n5\n');
});

test('an unknown route is a 404', async () => {
  expect((await fetch('GET /api/nothing')).status).toBe(404);
});
