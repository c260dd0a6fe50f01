import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StoredAnswer } from '../../../packages/middleware/src/idempotency/index.js';
import { ResponseRecorder } from '../../../packages/middleware/src/idempotency/response-recorder.js';
import { sendJson } from '../../../packages/middleware/src/http/index.js';

/** Serves one request with `write`, recording it, and returns what the client got and what was kept. */
async function recorded(write: (res: ServerResponse) => void, options: { json?: boolean; maxBytes?: number } = {}): Promise<{ text: string; headers: Headers; kept: StoredAnswer | undefined; endedWhole: boolean }> {
  let kept: StoredAnswer | undefined;
  let endedWhole = false;
  const server = createServer((_req, res) => {
    const recorder = new ResponseRecorder(res, options.maxBytes ?? 1_048_576, options.json);
    write(res);
    kept = recorder.answer();
    endedWhole = recorder.endedWhole;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return { text: await response.text(), headers: response.headers, kept, endedWhole };
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
    assert.equal((kept!.body as Buffer).buffer.byteLength, kept!.body.length, 'the kept bytes are all the memory it holds');
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
    assert.equal((kept!.body as Buffer).buffer.byteLength, kept!.body.length);
    assert.deepEqual(new Map(kept!.headers), new Map<string, string | string[]>([['content-type', 'text/event-stream'], ['x-request-id', 'req_1'], ['set-cookie', ['a=1', 'b=2']]]));
  });

  it('keeps a JSON answer as sendJson wrote it (payload and headers, those set before included), wrapping none of the response', async () => {
    let wrapped: string[] = [];
    const { text, headers, kept, endedWhole } = await recorded(
      (res) => {
        res.setHeader('x-request-id', 'req_1');
        sendJson(res, 200, { id: 'chatcmpl-1', text: 'héllo' }, { 'x-service-cost-usd': '0.000002' });
        wrapped = ['writeHead', 'write', 'end'].filter((method) => Object.hasOwn(res, method));
      },
      { json: true },
    );
    assert.deepEqual(wrapped, [], 'the response keeps its own methods');
    assert.equal(endedWhole, true);
    assert.equal(kept!.body.toString(), text);
    assert.equal(kept!.status, 200);
    const keptHeaders = new Map(kept!.headers);
    assert.equal(keptHeaders.get('content-length'), headers.get('content-length'));
    assert.equal(keptHeaders.get('x-service-cost-usd'), '0.000002');
    assert.equal(keptHeaders.get('x-request-id'), 'req_1');
    assert.equal(keptHeaders.get('content-type'), 'application/json');
  });

  it('keeps nothing of a JSON answer larger than the bound in UTF-8 bytes, but knows it ended whole', async () => {
    // A 38-character payload of 48 UTF-8 bytes: over a 45-byte bound though its length is not.
    const { text, kept, endedWhole } = await recorded((res) => sendJson(res, 200, { t: 'é'.repeat(10) + 'x'.repeat(20) }), { json: true, maxBytes: 45 });
    assert.equal(JSON.parse(text).t.length, 30, 'the client still got the whole answer');
    assert.equal(endedWhole, true);
    assert.equal(kept, undefined);
  });

  it('keeps a stream of multi-byte UTF-8 frames and a latin1 write byte for byte, the stream over the bound not at all', async () => {
    const { kept } = await recorded((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: héllo 🙂\n\n');
      res.write('data: caf\u00e9\n\n', 'latin1');
      res.end('data: \ud83d\n\n'); // a lone surrogate: sent, and kept, as U+FFFD
    });
    const sent = Buffer.concat([Buffer.from('data: héllo 🙂\n\n'), Buffer.from('data: caf\u00e9\n\n', 'latin1'), Buffer.from('data: \ud83d\n\n')]);
    assert.deepEqual(kept!.body, sent);
    const over = await recorded((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 🙂🙂🙂\n\n'); // 14 UTF-16 units, 20 UTF-8 bytes
      res.end();
    }, { maxBytes: 19 });
    assert.equal(over.kept, undefined);
  });
});
