import assert from 'node:assert/strict';
import { countTokens } from '../../../packages/middleware/src/tokenize/index.js';
import { longestStallDuring } from '../../support/event-loop-stall.js';
import { sendJson } from '../../support/scripted-provider.js';
import { TEST_KEY, startScriptedRoutes, type ScriptedRoutes } from '../../support/scripted-routes.js';

/** ~4 MB of ordinary words: a provider that ignored max_tokens. */
const PIECE = Array.from({ length: 40_000 }, (_, i) => `lorem ipsum dolor sit amet, consectetur adipiscing elit ${i}`).join(' ');
const PIECES = 5;
const TEXT = PIECE.repeat(PIECES);

const chunk = (delta: object) => JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta }] });

/**
 * Output a provider reported no usable count for is billed by the tokenizer; tens of megabytes of it (a provider
 * ignoring max_tokens, within relay.maxStreamBytes) were counted in one synchronous call, which stopped every other
 * request, stream and timer of the process for as long (11 s for 200 MB). It is counted in turns of the event loop.
 */
describe('megabytes of output without a usable report', function () {
  this.timeout(60_000);
  let routes: ScriptedRoutes;
  beforeEach(async () => {
    routes = await startScriptedRoutes({ organizations: { acme: { wallet: 1_000 } } });
  });
  afterEach(() => routes.close());

  const post = (body: object) => fetch(`${routes.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify(body) });

  it('a stream cut after them ends for the client at once, other requests are served while they are counted, and they are billed', async () => {
    routes.openai.set(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < PIECES; i++) if (!res.write(`data: ${chunk({ content: PIECE })}\n\n`)) await new Promise((resolve) => res.once('drain', resolve));
      setTimeout(() => res.socket!.destroy(), 20);
    });
    const response = await post({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    await assert.rejects(response.text(), 'the stream ends abnormally (contract §6.1 rule 2)');

    // Counted at once, the first request was settled before its client saw its stream end; in turns, a
    // request sent now is answered while the first still holds its slot.
    const models = await fetch(`${routes.gateway.url}/v1/models`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    assert.equal(models.status, 200);
    assert.equal((await routes.gateway.gate.admin.usage('acme')).inFlight, 1, 'still counting when the next request was answered');

    let usage = await routes.gateway.gate.admin.usage('acme');
    while (usage.inFlight > 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      usage = await routes.gateway.gate.admin.usage('acme');
    }
    assert.equal(usage.requests, 1);
    assert.equal(usage.outputTokens, countTokens(TEXT));
  });

  it('a JSON answer of them keeps the event loop turning while they are counted, and bills them', async () => {
    const started = performance.now();
    const tokens = countTokens(TEXT);
    const countedAtOnceMs = performance.now() - started;

    routes.openai.set((_req, res) => sendJson(res, 200, { id: 'c', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: TEXT }, finish_reason: 'stop' }] }));
    const { stallMs: longestGapMs } = await longestStallDuring(async () => {
      const response = await post({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(response.status, 200);
      assert.equal(((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content.length, TEXT.length);
    }, 2);
    assert.ok(longestGapMs < countedAtOnceMs / 2, `the event loop stood still for ${longestGapMs.toFixed(0)} ms (counting at once takes ${countedAtOnceMs.toFixed(0)} ms)`);
    const usage = await routes.gateway.gate.admin.usage('acme');
    assert.deepEqual([usage.requests, usage.outputTokens, usage.inFlight], [1, tokens, 0]);
  });
});
