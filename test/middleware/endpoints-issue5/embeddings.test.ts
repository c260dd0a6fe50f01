import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { postJson, startGateway } from '../../support/gateway.js';
import { TEST_KEY, startIssue5Stack, type Issue5Stack } from './issue5-stack.js';

describe('POST /v1/embeddings', () => {
  let stack: Issue5Stack;
  let openai: OpenAI;
  beforeEach(async () => {
    stack = await startIssue5Stack();
    openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  });
  afterEach(() => stack.close());

  for (const alias of ['embed', 'gemini-embed']) {
    it(`embeds a string and an array through the SDK on ${alias}, naming the alias and billing input tokens`, async () => {
      const one = await openai.embeddings.create({ model: alias, input: 'hello embeddings' });
      assert.equal(one.model, alias);
      assert.equal(one.data.length, 1);
      assert.equal(one.data[0]!.embedding.length, 8);
      assert.ok(one.data[0]!.embedding.every((v) => typeof v === 'number'));
      const many = await openai.embeddings.create({ model: alias, input: ['one', 'two words', 'three more words'], encoding_format: 'float' });
      assert.deepEqual(many.data.map((d) => d.index), [0, 1, 2]);
      const usage = await stack.gateway.gate.admin.usage('acme');
      assert.equal(usage.requests, 2);
      assert.equal(usage.inputTokens, one.usage.prompt_tokens + many.usage.prompt_tokens);
      assert.ok(usage.inputTokens > 0);
      assert.equal(usage.outputTokens, 0);
    });
  }

  it('answers base64 on a Gemini route that decodes to the same floats', async () => {
    const floats = await postJson(`${stack.gateway.url}/v1/embeddings`, { model: 'gemini-embed', input: 'abc', encoding_format: 'float' }, { authorization: `Bearer ${TEST_KEY}` });
    const base64 = await postJson(`${stack.gateway.url}/v1/embeddings`, { model: 'gemini-embed', input: 'abc', encoding_format: 'base64' }, { authorization: `Bearer ${TEST_KEY}` });
    const decoded = [...new Float32Array(new Uint8Array(Buffer.from(base64.body.data[0].embedding, 'base64')).buffer)];
    assert.deepEqual(decoded.map((v) => v.toFixed(5)), floats.body.data[0].embedding.map((v: number) => v.toFixed(5)));
    assert.equal(stack.gemini.requests.at(-1)!.path, '/v1beta/models/gemini-embedding-001:batchEmbedContents');
  });

  it('sends the provider model upstream on an OpenAI route', async () => {
    await openai.embeddings.create({ model: 'embed', input: 'x' });
    assert.equal((stack.openai.requests.at(-1)!.body as { model: string }).model, 'text-embedding-3-small');
  });

  it("relays an upstream error with the provider's original body and status", async () => {
    stack.openai.failNext({ status: 400, message: "'$.input' is invalid." });
    const response = await postJson(`${stack.gateway.url}/v1/embeddings`, { model: 'embed', input: 'x' }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: { message: "'$.input' is invalid.", type: 'invalid_request_error', param: null, code: null } });
  });

  it('answers 404 model_not_found for a chat alias and for an unknown name, 422 for a missing input', async () => {
    const chatAlias = await postJson(`${stack.gateway.url}/v1/embeddings`, { model: 'gpt', input: 'x' }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(chatAlias.status, 404);
    assert.equal(chatAlias.body.error.code, 'model_not_found');
    assert.equal(chatAlias.headers.get('x-service-reason'), 'unknown_model');
    const missing = await postJson(`${stack.gateway.url}/v1/embeddings`, { model: 'embed' }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(missing.status, 422);
    assert.ok(Array.isArray(missing.body.detail));
  });

  it('answers 400 for token-id input on a Gemini route, which embeds text only', async () => {
    const response = await postJson(`${stack.gateway.url}/v1/embeddings`, { model: 'gemini-embed', input: [1, 2, 3] }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.param, 'input');
  });

  it('answers 401 without a key', async () => {
    const response = await postJson(`${stack.gateway.url}/v1/embeddings`, { model: 'embed', input: 'x' });
    assert.equal(response.status, 401);
  });
});

describe('POST /v1/embeddings internal errors', () => {
  it('answers an error object with type internal_error when the answer cannot be built (contract §2.3 exception)', async () => {
    // A gateway fault, not the provider's: the clock breaks once the gateway is up, so admission throws a plain
    // Error. (A provider's 2xx of the wrong shape was the trigger until it became the provider's failure: 502.)
    let clockBroken = false;
    const clock = { now: () => (clockBroken ? assert.fail('the clock broke') : Date.now()) };
    const gateway = await startGateway(
      {
        defaultCatalog: false,
        keys: [{ key: TEST_KEY, org: 'acme' }],
        organizations: { acme: { wallet: 10, limits: { rpm: 100 } } },
        providers: { google: { kind: 'gemini', baseUrl: 'http://127.0.0.1:9/v1beta', apiKey: 'k', maxRetries: 0 } },
        models: { 'gemini-embed': { kind: 'embedding', routes: [{ provider: 'google', model: 'gemini-embedding-001' }] } },
      },
      { logger: { info() {}, error() {} }, clock },
    );
    try {
      await gateway.gate.ready();
      clockBroken = true;
      const response = await postJson(`${gateway.url}/v1/embeddings`, { model: 'gemini-embed', input: 'x' }, { authorization: `Bearer ${TEST_KEY}` });
      assert.equal(response.status, 500);
      assert.equal(response.body.error.type, 'internal_error');
      assert.equal(response.body.detail, undefined);
    } finally {
      await gateway.close();
    }
  });
});
