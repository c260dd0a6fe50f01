import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';
import { sendJson, startScripted } from '../../support/scripted-provider.js';
import { TEST_KEY, startIssue5Stack, type Issue5Stack } from './issue5-stack.js';

const auth = { authorization: `Bearer ${TEST_KEY}` };

describe('/v1/embeddings hostile provider answers', () => {
  let stack: Issue5Stack;
  beforeEach(async () => {
    stack = await startIssue5Stack();
  });
  afterEach(() => stack.close());

  it('answers 502 (not 200) when an OpenAI route sends a 200 whose JSON is an error object, and bills nothing', async () => {
    stack.openai.answerRawNext({ status: 200, body: '{"error":{"message":"proxy says no","type":"server_error"}}', contentType: 'application/json', times: 2 });
    const response = await postJson(`${stack.gateway.url}/v1/embeddings`, { model: 'embed', input: 'hello world' }, auth);
    assert.equal(response.status, 502, response.text);
    assert.equal((await stack.gateway.gate.admin.usage('acme')).requests, 0);
  });

  it('relays an upstream error whose body is nested deeper than JSON can be written with its status and message, not a 500', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    stack.openai.answerRawNext({ status: 400, body: `{"error":{"message":"input too odd","type":"invalid_request_error","extra":${deep}}}`, contentType: 'application/json' });
    const response = await postJson(`${stack.gateway.url}/v1/embeddings`, { model: 'embed', input: 'hello world' }, auth);
    assert.equal(response.status, 400, response.text);
    assert.deepEqual(response.body, { error: { message: 'input too odd', type: 'api_error', param: null, code: null } });
    const usage = await stack.gateway.gate.admin.usage('acme');
    assert.deepEqual([usage.requests, usage.inFlight], [0, 0]);
  });

  it('answers 502 (not 200) when an OpenAI route sends a 200 of JSON null', async () => {
    stack.openai.answerRawNext({ status: 200, body: 'null', contentType: 'application/json', times: 2 });
    const response = await postJson(`${stack.gateway.url}/v1/embeddings`, { model: 'embed', input: 'hello world' }, auth);
    assert.equal(response.status, 502, response.text);
  });

  it('answers 502 (not 200 with no data) when a Gemini route sends a 200 without embeddings, and bills nothing', async () => {
    stack.gemini.answerRawNext({ status: 200, body: '{}', contentType: 'application/json', times: 2 });
    const response = await postJson(`${stack.gateway.url}/v1/embeddings`, { model: 'gemini-embed', input: ['a', 'b'] }, auth);
    assert.equal(response.status, 502, response.text);
    assert.equal((await stack.gateway.gate.admin.usage('acme')).requests, 0);
  });

  it('answers 502 (not a short list) when a Gemini route sends fewer embeddings than inputs', async () => {
    stack.gemini.answerRawNext({ status: 200, body: '{"embeddings":[{"values":[0.1,0.2]}]}', contentType: 'application/json', times: 2 });
    const response = await postJson(`${stack.gateway.url}/v1/embeddings`, { model: 'gemini-embed', input: ['a', 'b', 'c'] }, auth);
    assert.equal(response.status, 502, response.text);
  });
});

describe('/v1/embeddings billing without a provider usage report', () => {
  let provider: Awaited<ReturnType<typeof startScripted>>;
  let gateway: RunningGateway;
  beforeEach(async () => {
    // An OpenAI-compatible server that reports no usage (README: the tokenizer counts then).
    provider = await startScripted((_req, res, body) => {
      const inputs: unknown[] = Array.isArray(body.input) && typeof body.input[0] !== 'number' ? body.input : [body.input];
      sendJson(res, 200, { object: 'list', data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [0.5, 0.25] })), model: body.model });
    });
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 100 } },
      providers: { local: { kind: 'openai', baseUrl: provider.baseUrl, apiKey: 'sk-local', maxRetries: 0 } },
      models: { embed: { kind: 'embedding', routes: [{ provider: 'local', model: 'local-embed' }], price: { input: 1 } } },
    };
    gateway = await startGateway(config);
  });
  afterEach(async () => {
    await gateway.close();
    await provider.close();
  });

  it('bills token-id input by its token count, not zero', async () => {
    const tokens = Array.from({ length: 1000 }, (_, i) => i + 1);
    const response = await postJson(`${gateway.url}/v1/embeddings`, { model: 'embed', input: tokens }, auth);
    assert.equal(response.status, 200, response.text);
    const usage = await gateway.gate.admin.usage('acme');
    assert.equal(usage.requests, 1);
    assert.equal(usage.inputTokens, 1000, 'a 1000-token prompt is 1000 input tokens');
  });

  it('bills an array of token-id arrays by its token count, not zero', async () => {
    const response = await postJson(`${gateway.url}/v1/embeddings`, { model: 'embed', input: [[1, 2, 3], [4, 5]] }, auth);
    assert.equal(response.status, 200, response.text);
    assert.equal((await gateway.gate.admin.usage('acme')).inputTokens, 5);
  });
});
