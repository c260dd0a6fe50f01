import assert from 'node:assert/strict';
import { SqlError, StreamInterruptedError, TollgateClient, WalletEmptyError } from '@tollgate/client';
import { startFakeOpenAI } from '../fakes/index.js';
import { startGateway, type RunningGateway } from '../support/gateway.js';

describe('@tollgate/client against a real Tollgate', () => {
  let gateway: RunningGateway;
  let openai: Awaited<ReturnType<typeof startFakeOpenAI>>;
  let tg: TollgateClient;
  before(async () => {
    openai = await startFakeOpenAI();
    gateway = await startGateway({
      defaultCatalog: false,
      keys: [
        { key: 'tg-client-test-0001', org: 'acme' },
        { key: 'tg-client-broke-001', org: 'broke' },
      ],
      organizations: { acme: { wallet: 10 }, broke: { wallet: 0 } },
      providers: { openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai' } },
      models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }] } },
      sql: { databases: { main: {}, other: {} } },
    });
    tg = new TollgateClient({ baseUrl: gateway.url, apiKey: 'tg-client-test-0001' });
  });
  after(async () => {
    await gateway.close();
    await openai.close();
  });

  it('runs SQL and returns typed table and ok results', async () => {
    assert.deepEqual(await tg.sql('CREATE TABLE t(x); INSERT INTO t VALUES (?), (?)', { params: [1, 2] }), { type: 'ok', affected_rows: 2, context: { db: 'main' } });
    assert.deepEqual(await tg.sql('SELECT x FROM t ORDER BY x'), { type: 'table', column_names: ['x'], column_types: [{ declared: null, storage: 'integer' }], data: [[1], [2]], context: { db: 'main' } });
    assert.deepEqual((await tg.sql('SELECT 1 AS one', { db: 'other' })).context, { db: 'other' });
  });

  it('raises SqlError with the error code of a failed statement', async () => {
    const error = await tg.sql('SELEC 1').catch((e: unknown) => e);
    assert.ok(error instanceof SqlError);
    assert.equal(error.errorCode, 'syntax_error');
  });

  it('lists models, completes a chat and streams one to its normal end', async () => {
    assert.deepEqual(await tg.models(), ['gpt']);
    const completion = await tg.chat({ model: 'gpt', messages: [{ role: 'user', content: 'hello' }] });
    assert.equal(completion.choices[0]?.message.content, 'Echo: hello');
    let text = '';
    for await (const chunk of tg.chatStream({ model: 'gpt', messages: [{ role: 'user', content: 'hello stream' }] })) text += chunk.choices[0]?.delta.content ?? '';
    assert.equal(text, 'Echo: hello stream');
  });

  it('streams /v1/messages to message_stop', async () => {
    const types: string[] = [];
    for await (const event of tg.messagesStream({ model: 'gpt', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] })) types.push(event.type);
    assert.equal(types.at(-1), 'message_stop');
  });

  it('raises StreamInterruptedError when Tollgate ends a failed stream abnormally', async () => {
    openai.dropAfterChunks(3);
    const error = await (async () => {
      for await (const _ of tg.chatStream({ model: 'gpt', messages: [{ role: 'user', content: 'a b c d e f g h' }] }));
    })().catch((e: unknown) => e);
    openai.dropAfterChunks(undefined);
    assert.ok(error instanceof StreamInterruptedError);
    assert.ok(error.partialText.length > 0);
  });

  it('raises WalletEmptyError with the recovery URL', async () => {
    const broke = new TollgateClient({ baseUrl: gateway.url, apiKey: 'tg-client-broke-001' });
    const error = await broke.chat({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    assert.ok(error instanceof WalletEmptyError);
    assert.equal(error.recoveryUrl, '/console/billing');
  });
});
