import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { StreamInterruptedError, TollgateClient } from '@tollgate/client';
import { wireFamilies } from '@tollgate/wire-families';
import { endsResponsesStream } from '../../packages/middleware/src/translate/index.js';
import { ScriptedServer } from './scripted-server.js';

const source = (path: string) => readFileSync(new URL(`../../packages/${path}`, import.meta.url), 'utf8');

describe('the normal end of each stream family, shared by server and client (contract §6.1)', () => {
  let server: ScriptedServer;
  let client: TollgateClient;
  beforeEach(async () => {
    server = await new ScriptedServer().start();
    client = new TollgateClient({ baseUrl: server.url, apiKey: 'tg-client-key', sleep: async () => undefined });
  });
  afterEach(() => server.close());

  it('is one definition: the client and the middleware both read the @tollgate/wire-families table', () => {
    assert.equal(endsResponsesStream, wireFamilies.responses.isNormalEnd);
    assert.match(source('client/src/read-stream.ts'), /isNormalEnd: wireFamilies\.responses\.isNormalEnd/);
    assert.equal(wireFamilies.responses.isNormalEnd({ type: 'response.incomplete' }), true);
    assert.equal(wireFamilies.responses.isNormalEnd({ type: 'response.failed' }), false);
  });

  const event = (data: object) => `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`;
  const delta = (text: string) => event({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: text });
  const body = { model: 'gpt', input: 'hi', max_output_tokens: 16 };
  async function readAll(): Promise<string[]> {
    const types: string[] = [];
    for await (const e of client.responsesStream(body)) types.push(e.type);
    return types;
  }

  it('ends a Responses stream cut by max_output_tokens (response.incomplete) normally', async () => {
    server.respond({ sse: [event({ type: 'response.created', response: { status: 'in_progress' } }), delta('Hel'), event({ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } })] });
    assert.deepEqual((await readAll()).at(-1), 'response.incomplete');
  });

  it('still raises StreamInterruptedError for a Responses stream that ends in response.failed or without an end', async () => {
    server.respond({ sse: [delta('Hel'), event({ type: 'response.failed', response: { status: 'failed' } })] }, { sse: [delta('Hel')] });
    for (let i = 0; i < 2; i++) {
      const error = await readAll().catch((e: unknown) => e);
      assert.ok(error instanceof StreamInterruptedError);
      assert.equal(error.partialText, 'Hel');
    }
  });
});
