import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { readSse, startGateway } from '../../support/gateway.js';
import { startScripted } from '../../support/scripted-provider.js';
import { startScriptedRoutes, TEST_KEY, type ScriptedRoutes } from '../../support/scripted-routes.js';

/**
 * A reasoning model behind an OpenAI-kind route (DeepSeek, vLLM and Ollama stream their reasoning as
 * `delta.reasoning_content` / `delta.reasoning`; OpenAI's Responses API as `response.reasoning_summary_text.delta`)
 * whose stream ends before its usage chunk — the client left, or the provider dropped. What was relayed is output
 * actually delivered (README "What is billed"; "Extended thinking is output: a stream cut after its thinking_delta's
 * bills them"), so it is billed by the tokenizer instead of being served for free.
 */
describe('reasoning relayed before a stream breaks is billed', function () {
  this.timeout(20_000);
  let routes: ScriptedRoutes;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await routes?.close();
    routes = undefined as never;
    for (const close of closers.splice(0).reverse()) await close();
  });

  // ~400 o200k tokens of reasoning, in 40 deltas.
  const pieces = Array.from({ length: 40 }, (_, i) => `Step ${i}: consider the integral of x squared over the interval carefully. `);
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'deepseek-r1' };

  function chatReasoningThenDrop(field: 'reasoning_content' | 'reasoning') {
    return (res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null }] })}\n\n`);
      for (const piece of pieces) res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: null, [field]: piece }, finish_reason: null }] })}\n\n`);
      setTimeout(() => res.destroy(), 50);
    };
  }

  for (const field of ['reasoning_content', 'reasoning'] as const) {
    it(`/v1/chat/completions relaying delta.${field}: the delivered reasoning is billed as output`, async () => {
      routes = await startScriptedRoutes();
      const drop = chatReasoningThenDrop(field);
      routes.openai.set((_req, res) => drop(res));
      const response = await fetch(`${routes.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'gpt', max_tokens: 4000, stream: true, messages: [{ role: 'user', content: 'think' }] }) });
      const { events, broke } = await readSse(response);
      assert.equal(broke, true);
      const relayed = events.map((event) => JSON.parse(event.data).choices?.[0]?.delta?.[field] ?? '').join('');
      assert.equal(relayed, pieces.join(''), 'the client got the whole reasoning');
      const usage = await routes.gateway.gate.admin.usage('acme');
      assert.equal(usage.inFlight, 0);
      assert.ok(usage.outputTokens >= 200, `~400 tokens of reasoning were delivered, ${usage.outputTokens} output tokens billed`);
    });
  }

  it('/v1/responses (native) relaying response.reasoning_summary_text.delta: the delivered summary is billed as output', async () => {
    // The OpenAI provider relaying /v1/responses natively, as for OpenAI's own hosts.
    const openai = await startScripted(() => undefined);
    closers.push(() => openai.close());
    const gateway = await startGateway({
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 100 } },
      providers: { openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai', retryBaseMs: 1, maxRetries: 0, responsesApi: true } },
      models: { gpt: { routes: [{ provider: 'openai', model: 'o4-mini' }], price: { input: 2.5, output: 10 } } },
    });
    closers.push(() => gateway.close());
    openai.set((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const response = { id: 'resp_1', object: 'response', status: 'in_progress', model: 'o4-mini', output: [] };
      res.write(`event: response.created\ndata: ${JSON.stringify({ type: 'response.created', sequence_number: 0, response })}\n\n`);
      pieces.forEach((delta, i) => res.write(`event: response.reasoning_summary_text.delta\ndata: ${JSON.stringify({ type: 'response.reasoning_summary_text.delta', sequence_number: i + 1, item_id: 'rs_1', output_index: 0, summary_index: 0, delta })}\n\n`));
      setTimeout(() => res.destroy(), 50);
    });
    const response = await fetch(`${gateway.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'gpt', stream: true, input: 'think', reasoning: { summary: 'auto' } }) });
    const { events, broke } = await readSse(response);
    assert.equal(broke, true);
    assert.equal(events.filter((event) => event.data.includes('reasoning_summary_text.delta')).length, pieces.length);
    const usage = await gateway.gate.admin.usage('acme');
    assert.equal(usage.inFlight, 0);
    assert.ok(usage.outputTokens >= 200, `~400 tokens of reasoning summary were delivered, ${usage.outputTokens} output tokens billed`);
  });
});
