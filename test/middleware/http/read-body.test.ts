import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { readJsonBody } from '../../../packages/middleware/src/http/read-body.js';

/** A request stream as node:http gives it: headers, then the body's bytes, then its end. */
function request(body: string): IncomingMessage {
  const req = new PassThrough() as unknown as IncomingMessage & PassThrough;
  (req as { headers: object }).headers = { 'content-length': String(Buffer.byteLength(body)) };
  req.end(body);
  return req;
}

describe('reading a JSON request body', () => {
  it('lets go of the body once read: a streamed answer keeps its request open, not its prompt bytes', async () => {
    const req = request(JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(100_000) }] }));
    const body = (await readJsonBody(req, { limitBytes: 1 << 20, deadlineMs: 5_000 })) as { messages: unknown[] };
    assert.equal(body.messages.length, 1);
    // Nothing of the read stays attached to the request but the error listener (an unheard error would crash).
    assert.equal(req.listenerCount('data'), 0);
    assert.equal(req.listenerCount('end'), 0);
    assert.equal(req.listenerCount('error'), 1);
  });

  it('still answers 413 past the limit and drains the rest unread', async () => {
    const req = request('x'.repeat(2_000));
    await assert.rejects(readJsonBody(req, { limitBytes: 1_000, deadlineMs: 5_000 }), (error: { kind?: string }) => error.kind === 'request_too_large');
  });

  it('reads bodies that arrived with their headers and bodies that come later alike, on one keep-alive connection', async () => {
    const server = createServer((req, res) => {
      readJsonBody(req, { limitBytes: 1 << 20, deadlineMs: 5_000 }).then(
        (body) => res.end(JSON.stringify(body)),
        (error: { kind?: string }) => res.end(JSON.stringify({ error: error.kind })),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    const head = (body: string) => `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`;
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const answers = (count: number) => new Promise<string[]>((resolve) => {
      const check = () => {
        const bodies = received.split('\r\n\r\n').slice(1).map((part) => part.split('HTTP/1.1')[0]!.replace(/^[0-9a-f]+\r\n|\r\n0\r\n$|\r\n[0-9a-f]+\r\n/g, ''));
        if (bodies.length >= count && bodies.slice(0, count).every((body) => body.endsWith('}'))) resolve(bodies.slice(0, count));
        else setImmediate(check);
      };
      check();
    });
    try {
      const first = JSON.stringify({ n: 1, text: 'héllo' });
      const second = JSON.stringify({ n: 2 });
      socket.write(head(first) + first + head(second) + second); // both whole in one packet
      const third = JSON.stringify({ n: 3, text: 'late' });
      const parsed = new Promise<void>((resolve) => server.on('request', (req: IncomingMessage) => req.headers['content-length'] === String(third.length) && resolve()));
      socket.write(head(third) + third.slice(0, 5));
      await parsed;
      socket.write(third.slice(5)); // the rest of its body once its headers were parsed
      const bodies = await answers(3);
      assert.deepEqual(bodies.map((body) => JSON.parse(body) as unknown), [JSON.parse(first), JSON.parse(second), JSON.parse(third)]);
    } finally {
      socket.destroy();
      server.close();
    }
  });
});
