import assert from 'node:assert/strict';
import { postJson, TEST_KEY } from '../../support/gateway.js';
import { startIssue5Stack } from '../endpoints-issue5/issue5-stack.js';
import { startStack } from '../gateway/gateway-fixture.js';

const auth = { authorization: `Bearer ${TEST_KEY}` };
const user = [{ role: 'user', content: 'hi there' }];

describe('parameter adaptation (contract §4.3)', function () {
  this.timeout(20_000);

  it('reports metadata (user_id) dropped on a Messages request served by a Gemini route', async () => {
    const stack = await startIssue5Stack();
    try {
      const r = await postJson(`${stack.gateway.url}/v1/messages`, { model: 'gemini', max_tokens: 50, messages: user, metadata: { user_id: 'u1' } }, { 'x-api-key': TEST_KEY });
      assert.equal(r.status, 200);
      // Gemini has no field for the end user: the chat route drops `user` (a chat client gets it reported), so the
      // Messages client's `metadata` never reaches Gemini and must be named (rule 1).
      assert.deepEqual(stack.gemini.requests.at(-1)?.body, { contents: [{ role: 'user', parts: [{ text: 'hi there' }] }], generationConfig: { maxOutputTokens: 50 } });
      assert.equal(r.headers.get('x-service-dropped-params'), 'metadata');
    } finally {
      await stack.close();
    }
  });

  it('reports OpenAI-only chat parameters (web_search_options, verbosity) dropped on an Anthropic route', async () => {
    const stack = await startIssue5Stack();
    try {
      const r = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'claude', messages: user, web_search_options: {}, verbosity: 'low' }, auth);
      assert.equal(r.status, 200);
      const sent = stack.anthropic.requests.at(-1)?.body as Record<string, unknown>;
      assert.equal('web_search_options' in sent, false);
      assert.equal('verbosity' in sent, false);
      assert.equal(r.headers.get('x-service-dropped-params'), 'web_search_options,verbosity');
    } finally {
      await stack.close();
    }
  });

  it('clamps max_tokens to the model rule max even when the alias has maxOutputTokens, keeping the provider min', async () => {
    const stack = await startStack({
      models: { m: { routes: [{ provider: 'anthropic', model: 'claude-sonnet-4-5' }], price: { input: 1, output: 1 }, maxOutputTokens: 64_000, params: { max_tokens: { max: 1000 }, temperature: { max: 0.5 } } } },
    });
    try {
      const r = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'm', messages: user, max_tokens: 5000, temperature: -1 }, auth);
      assert.equal(r.status, 200);
      const sent = stack.anthropic.requests.at(-1)?.body as Record<string, unknown>;
      assert.equal(sent.max_tokens, 1000);
      assert.equal(sent.temperature, 0);
      assert.equal(r.headers.get('x-service-clamped-params'), 'temperature=-1>0,max_tokens=5000>1000');
    } finally {
      await stack.close();
    }
  });

  it('never sends a parameter the model cannot take upstream when the client set it to null', async () => {
    const stack = await startStack({
      models: { o: { routes: [{ provider: 'openai', model: 'o4-mini' }], price: { input: 1, output: 1 }, params: { temperature: false, logit_bias: false } } },
    });
    try {
      const r = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'o', messages: user, temperature: null, logit_bias: null }, auth);
      assert.equal(r.status, 200);
      const sent = stack.openai.requests.at(-1)?.body as Record<string, unknown>;
      // max_tokens: the output budget the request reserved, which Tollgate sends when the client set none (README "Reservations").
      assert.deepEqual(Object.keys(sent).sort(), ['max_tokens', 'messages', 'model']);
      // A null is "not set": nothing was adapted, so neither header (rule 3).
      assert.equal(r.headers.get('x-service-dropped-params'), null);
    } finally {
      await stack.close();
    }
  });
});
