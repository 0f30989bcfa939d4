/** A refusal sent before the body was read reaches a client that is still sending (real sockets on loopback). */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { lingerOnClose, type Linger } from './lingering-close';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done) ?? done(undefined));
  server = undefined;
});

/** A server that refuses every request at once, with Connection: close, reading none of its body; it lingers as `linger` says, if given. */
async function refusing(linger: Linger | undefined): Promise<number> {
  server = createServer((_request, response) => {
    response.writeHead(413, { 'content-type': 'text/plain', connection: 'close' });
    response.end('too large');
  });
  if (linger) lingerOnClose(server, linger);
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return (server.address() as AddressInfo).port;
}

/**
 * Sends `total` bytes of a chunked body without reading anything, then reads: what a client busy
 * sending (a CLI streaming a deploy) sees. Resolves with the status it read, 0 for none.
 */
function sendThenRead(port: number, total: number): Promise<{ status: number; written: number }> {
  const chunk = Buffer.alloc(256 * 1024, 0x20);
  const framed = Buffer.concat([Buffer.from(`${chunk.byteLength.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
  return new Promise((resolve) => {
    let received = '';
    let written = 0;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0), written });
    };
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
    socket.on('error', settle);
    socket.on('close', settle);
    socket.write(`POST /deploy HTTP/1.1\r\nhost: 127.0.0.1\r\ntransfer-encoding: chunked\r\n\r\n`);
    const pump = () => {
      while (!socket.destroyed && written < total) {
        written += chunk.byteLength;
        if (!socket.write(framed)) return void socket.once('drain', pump);
      }
      if (socket.destroyed) return;
      // All sent: now the answer is read.
      socket.end('0\r\n\r\n');
      socket.resume();
      socket.once('end', settle);
    };
    pump();
  });
}

it('a 413 sent with Connection: close before the body was read reaches the client that was still sending it', async () => {
  const port = await refusing({ ms: 2_000, bytes: 64 * 1024 * 1024 });
  const seen = await sendThenRead(port, 8 * 1024 * 1024);
  expect(seen.status).toBe(413);
  expect(seen.written).toBe(8 * 1024 * 1024);
});

it('without the lingering close the same client gets a reset instead of the answer', async () => {
  // What the control plane did before: the refusal was lost whenever the reset came first.
  const port = await refusing(undefined);
  const seen = await sendThenRead(port, 8 * 1024 * 1024);
  expect(seen.status).toBe(0);
});

it('a client that never stops sending is cut off after the linger bytes, and the server still serves', async () => {
  const port = await refusing({ ms: 5_000, bytes: 4 * 1024 * 1024 });
  const seen = await sendThenRead(port, 512 * 1024 * 1024);
  expect(seen.written).toBeLessThan(512 * 1024 * 1024);
  const again = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'x' });
  expect(again.status).toBe(413);
});
