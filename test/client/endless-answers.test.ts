import assert from 'node:assert/strict';
import { InternalError, StreamInterruptedError, TollgateClient, TollgateError } from '@tollgate/client';
import { ScriptedServer } from './scripted-server.js';

const chatBody = { model: 'gpt', messages: [{ role: 'user' as const, content: 'hi' }] };
const MiB = 1024 * 1024;

/** A hostile or broken server whose answer never ends: the client must stop reading, say why, and hang up. */
describe('@tollgate/client: answers that never end', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await new ScriptedServer().start();
  });
  afterEach(() => server.close());

  it('refuses a 200 JSON answer that never ends once it passes maxAnswerBytes, hangs up, and does not retry it', async () => {
    server.respond({ flood: '"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",', head: '{"type":"table","data":[' });
    const client = new TollgateClient({ baseUrl: server.url, apiKey: 'k', maxAnswerBytes: MiB, retryConnectionFailures: true, sleep: async () => undefined });
    const error = await client.sql('SELECT * FROM huge').catch((e: unknown) => e);
    assert.ok(error instanceof TollgateError, String(error));
    assert.equal(error.status, 200);
    assert.match(error.message, /larger than maxAnswerBytes \(1048576 bytes\)/);
    await until(() => server.flooded.length === 1);
    assert.ok(server.flooded[0]! < 64 * MiB, `the server wrote ${server.flooded[0]} bytes before the client hung up`);
    assert.equal(server.requests.length, 1, 'an answer too large is no lost connection: never retried');
  });

  it('reads only the start of an error body that never ends, then raises the status\'s error', async () => {
    server.respond({ flood: 'x'.repeat(4096), status: 500, contentType: 'text/plain' });
    const client = new TollgateClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0 });
    const error = await client.chat(chatBody).catch((e: unknown) => e);
    assert.ok(error instanceof InternalError, String(error));
    assert.match(error.message, /^HTTP 500: x{200}$/);
    await until(() => server.flooded.length === 1);
    assert.ok(server.flooded[0]! < 64 * MiB, `the server wrote ${server.flooded[0]} bytes before the client hung up`);
  });

  it('raises StreamInterruptedError, naming the limit, for one stream event that never ends (no newline)', async () => {
    server.respond({ flood: 'x'.repeat(4096), head: 'data: {"choices":[{"index":0,"delta":{"content":"', contentType: 'text/event-stream' });
    const client = new TollgateClient({ baseUrl: server.url, apiKey: 'k', maxAnswerBytes: MiB });
    const error = await (async () => {
      for await (const chunk of client.chatStream(chatBody)) void chunk;
    })().catch((e: unknown) => e);
    assert.ok(error instanceof StreamInterruptedError, String(error));
    assert.match(error.message, /stream event larger than maxAnswerBytes \(1048576 bytes\)/);
    await until(() => server.flooded.length === 1);
    assert.ok(server.flooded[0]! < 64 * MiB, `the server wrote ${server.flooded[0]} bytes before the client hung up`);
  });

  it('keeps a stream of keep-alive comments open past maxAnswerBytes: only timeoutMs ends it', async () => {
    server.respond({ flood: ': keep-alive\n\n'.repeat(64), head: 'data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n', contentType: 'text/event-stream' });
    const client = new TollgateClient({ baseUrl: server.url, apiKey: 'k', maxAnswerBytes: 64 * 1024, timeoutMs: 3000 });
    const started = Date.now();
    const error = await (async () => {
      for await (const chunk of client.chatStream(chatBody)) void chunk;
    })().catch((e: unknown) => e);
    assert.ok(error instanceof StreamInterruptedError, String(error));
    assert.equal(error.partialText, 'Hel');
    assert.match(error.message, /timeout/i);
    assert.ok(Date.now() - started >= 2500, `ended after ${Date.now() - started} ms, before timeoutMs`);
  });

  it('keeps at most maxAnswerBytes of partial text from a stream that never finishes, however much arrives', async () => {
    server.respond({ flood: 'data: {"choices":[{"index":0,"delta":{"content":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}]}\n\n'.repeat(64), contentType: 'text/event-stream' });
    const client = new TollgateClient({ baseUrl: server.url, apiKey: 'k', maxAnswerBytes: 64 * 1024, timeoutMs: 3000 });
    let received = 0;
    const error = await (async () => {
      for await (const chunk of client.chatStream(chatBody)) received += chunk.choices[0]?.delta?.content?.length ?? 0;
    })().catch((e: unknown) => e);
    assert.ok(error instanceof StreamInterruptedError, String(error));
    assert.ok(received > 1024 * 1024, `only ${received} characters arrived: the test needs more than the limit`);
    assert.ok(error.partialText.length <= 64 * 1024, `the error kept ${error.partialText.length} characters`);
    assert.ok(error.partialText.startsWith('xxxx'));
  });
});

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
