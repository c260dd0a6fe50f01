import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
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
});
