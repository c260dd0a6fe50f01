import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StoredAnswer } from '../../../packages/middleware/src/idempotency/index.js';
import { ResponseRecorder } from '../../../packages/middleware/src/idempotency/response-recorder.js';

/** Serves one request with `write`, recording it, and returns what the client got and what was kept. */
async function recorded(write: (res: ServerResponse) => void): Promise<{ text: string; kept: StoredAnswer | undefined }> {
  let kept: StoredAnswer | undefined;
  const server = createServer((_req, res) => {
    const recorder = new ResponseRecorder(res, 1_048_576);
    write(res);
    kept = recorder.answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return { text: await response.text(), kept };
  } finally {
    server.close();
  }
}

describe('recording an answer to replay it', () => {
  it('keeps a small JSON answer in memory of its own, not a view that holds a shared 8 KiB pool alive', async () => {
    const { text, kept } = await recorded((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    assert.equal(kept!.body.toString(), text);
    assert.equal(kept!.body.buffer.byteLength, kept!.body.length, 'the kept bytes are all the memory it holds');
  });

  it('keeps a streamed answer as one buffer of exactly its bytes, with the headers set before and given to writeHead', async () => {
    const { text, kept } = await recorded((res) => {
      res.setHeader('x-request-id', 'req_1');
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: 1\n\n');
      res.write(Buffer.from('data: 2\n\n'));
      res.end('data: [DONE]\n\n');
    });
    assert.equal(kept!.body.toString(), text);
    assert.equal(kept!.body.buffer.byteLength, kept!.body.length);
    assert.deepEqual(new Map(kept!.headers), new Map<string, string | string[]>([['content-type', 'text/event-stream'], ['x-request-id', 'req_1'], ['set-cookie', ['a=1', 'b=2']]]));
  });
});
