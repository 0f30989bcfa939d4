/** readIncoming against real HTTP: bodies with and without a length, at and past the limit, and a client that goes away. */
import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyTooLargeError } from './body-limit';
import { readIncoming } from './incoming-body';

const LIMIT = 4096;
let server: Server;
let port: number;
/** What the server's last reading came to: the bytes read, or the error. */
let last: Promise<Uint8Array | Error>;

beforeAll(async () => {
  server = createServer((incoming, outgoing) => {
    last = readIncoming(incoming, LIMIT).catch((error: Error) => error);
    void last.then((outcome) => {
      if (outcome instanceof BodyTooLargeError) {
        outgoing.writeHead(413, { connection: 'close' });
        outgoing.end('too large');
      } else if (outcome instanceof Error) {
        outgoing.destroy();
      } else {
        outgoing.writeHead(200);
        outgoing.end(String(outcome.byteLength));
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

/** POSTs `chunks` (chunked when no length is given); resolves the status and the answer. */
function post(chunks: Uint8Array[], headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers }, (answer) => {
      let text = '';
      answer.on('data', (chunk: Buffer) => (text += chunk.toString()));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, text }));
    });
    sent.on('error', reject);
    for (const chunk of chunks) sent.write(chunk);
    sent.end();
  });
}

describe('readIncoming', () => {
  it('reads a body of up to the limit, with a length or chunked, and an empty one', async () => {
    expect(await post([new Uint8Array(LIMIT).fill(1)], { 'content-length': String(LIMIT) })).toEqual({ status: 200, text: String(LIMIT) });
    expect(await post([new Uint8Array(1000), new Uint8Array(1000), new Uint8Array(LIMIT - 2000)])).toEqual({ status: 200, text: String(LIMIT) });
    expect(await post([], { 'content-length': '0' })).toEqual({ status: 200, text: '0' });
    const bytes = (await last) as Uint8Array;
    expect(bytes.byteLength).toBe(0);
  });

  it('keeps the bytes as sent', async () => {
    const body = new TextEncoder().encode('{"input":{"path":"héllo"}}');
    await post([body.subarray(0, 5), body.subarray(5)]);
    expect(Buffer.from((await last) as Uint8Array).toString('utf8')).toBe('{"input":{"path":"héllo"}}');
  });

  it('fails with BodyTooLargeError one byte past the limit, chunked with no length', async () => {
    const answer = await post([new Uint8Array(LIMIT), new Uint8Array(1)]);
    expect(answer.status).toBe(413);
    expect(await last).toBeInstanceOf(BodyTooLargeError);
  });

  it('stops reading a huge body past the limit: the sender is held back, not read to the end', async () => {
    const socket = connect(port, '127.0.0.1');
    await new Promise((done) => socket.once('connect', done));
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n');
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let written = 0;
    let answer = '';
    socket.on('data', (data: Buffer) => (answer += data.toString()));
    const closed = new Promise((done) => socket.once('close', done));
    socket.on('error', () => undefined);
    // Written while the socket takes it; the server answers 413 and closes long before 256 MiB.
    while (!socket.destroyed && written < 256 * 1024 * 1024) {
      const more = socket.write(`${chunk.byteLength.toString(16)}\r\n`) && socket.write(chunk) && socket.write('\r\n');
      written += chunk.byteLength;
      if (!more) await Promise.race([new Promise((done) => socket.once('drain', done)), closed]);
    }
    await closed;
    expect(answer).toMatch(/^HTTP\/1.1 413/);
    expect(written).toBeLessThan(256 * 1024 * 1024);
    expect(await last).toBeInstanceOf(BodyTooLargeError);
  });

  it('fails, not hangs, when the client goes away before the body ends', async () => {
    const socket = connect(port, '127.0.0.1');
    await new Promise((done) => socket.once('connect', done));
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\nabc');
    await new Promise((done) => setTimeout(done, 50));
    socket.destroy();
    const outcome = await last;
    expect(outcome).toBeInstanceOf(Error);
    expect(outcome).not.toBeInstanceOf(BodyTooLargeError);
  });
});
