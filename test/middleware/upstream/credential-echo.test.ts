import assert from 'node:assert/strict';
import { startFakeAnthropic, startFakeGemini, startFakeOpenAI, FAKE_ANTHROPIC_KEY, FAKE_GEMINI_KEY, FAKE_OPENAI_KEY } from '../../fakes/index.js';
import type { FakeServer } from '../../fakes/fake-server.js';
import { startGateway, type RunningGateway } from '../../support/gateway.js';

const KEY = 'tg-credential-echo-key-0123456789abcdef';
const PROXY_TOKEN = 'proxy-secret-token-42';
const SECRETS = [FAKE_OPENAI_KEY, FAKE_ANTHROPIC_KEY, FAKE_GEMINI_KEY, PROXY_TOKEN];

/** Every endpoint a family's error can come back through, as raw HTTP: the bytes are what is asserted. */
const calls = [
  { name: 'OpenAI chat', fake: 'openai', path: '/v1/chat/completions', body: { model: 'gpt', messages: [{ role: 'user', content: 'hi' }] } },
  { name: 'OpenAI chat stream', fake: 'openai', path: '/v1/chat/completions', body: { model: 'gpt', stream: true, messages: [{ role: 'user', content: 'hi' }] } },
  { name: 'OpenAI responses', fake: 'openai', path: '/v1/responses', body: { model: 'gpt', input: 'hi' } },
  { name: 'OpenAI embeddings (provider body relayed)', fake: 'openai', path: '/v1/embeddings', body: { model: 'embed', input: 'hi' } },
  { name: 'OpenAI via /v1/messages', fake: 'openai', path: '/v1/messages', body: { model: 'gpt', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] } },
  { name: 'Anthropic messages', fake: 'anthropic', path: '/v1/messages', body: { model: 'claude', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] } },
  { name: 'Anthropic messages stream', fake: 'anthropic', path: '/v1/messages', body: { model: 'claude', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hi' }] } },
  { name: 'Anthropic via chat', fake: 'anthropic', path: '/v1/chat/completions', body: { model: 'claude', messages: [{ role: 'user', content: 'hi' }] } },
  { name: 'Anthropic count_tokens', fake: 'anthropic', path: '/v1/messages/count_tokens', body: { model: 'claude', messages: [{ role: 'user', content: 'hi' }] } },
  { name: 'Gemini via chat', fake: 'gemini', path: '/v1/chat/completions', body: { model: 'gemini', messages: [{ role: 'user', content: 'hi' }] } },
  { name: 'Gemini via chat stream', fake: 'gemini', path: '/v1/chat/completions', body: { model: 'gemini', stream: true, messages: [{ role: 'user', content: 'hi' }] } },
  { name: 'Gemini via /v1/messages', fake: 'gemini', path: '/v1/messages', body: { model: 'gemini', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] } },
] as const;

describe('provider credentials echoed back by an upstream (issue 15 item 3)', () => {
  let fakes: Record<'openai' | 'anthropic' | 'gemini', FakeServer>;
  let gateway: RunningGateway;

  before(async () => {
    fakes = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic(), gemini: await startFakeGemini() };
    for (const fake of Object.values(fakes)) fake.echoCredentials();
    gateway = await startGateway({
      defaultCatalog: false,
      keys: [{ key: KEY, org: 'acme' }],
      organizations: { acme: { wallet: 10 } },
      providers: {
        // A configured header that is a secret too (an authenticating proxy's token).
        openai: { kind: 'openai', baseUrl: fakes.openai.baseUrl, apiKey: FAKE_OPENAI_KEY, headers: { 'x-proxy-token': PROXY_TOKEN }, maxRetries: 0 },
        anthropic: { kind: 'anthropic', baseUrl: fakes.anthropic.baseUrl, apiKey: FAKE_ANTHROPIC_KEY, maxRetries: 0 },
        gemini: { kind: 'gemini', baseUrl: fakes.gemini.baseUrl, apiKey: FAKE_GEMINI_KEY, maxRetries: 0 },
      },
      models: {
        gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }] },
        embed: { kind: 'embedding', routes: [{ provider: 'openai', model: 'text-embedding-3-small' }] },
        claude: { routes: [{ provider: 'anthropic', model: 'claude-haiku-4-5' }] },
        gemini: { routes: [{ provider: 'gemini', model: 'gemini-2.5-flash' }] },
      },
    });
  });
  after(async () => {
    await gateway.close();
    for (const fake of Object.values(fakes)) await fake.close();
  });

  const post = async (path: string, body: unknown) => {
    const response = await fetch(gateway.url + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) });
    // A failed stream ends abnormally (DESIGN "Streaming"): keep the bytes that arrived before the break.
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
    } catch {}
    return { status: response.status, bytes: Buffer.concat(chunks).toString('latin1') };
  };

  for (const call of calls) {
    for (const status of [400, 401]) {
      it(`${call.name}: a ${status} whose message echoes the provider's credentials reaches the client redacted`, async () => {
        fakes[call.fake].failNext({ status, message: 'Request refused' });
        const { status: answered, bytes } = await post(call.path, call.body);
        assert.equal(answered, status, bytes);
        assert.ok(bytes.includes('Request refused (received'), `the provider's message is still relayed: ${bytes}`);
        assert.ok(bytes.includes('[redacted]'), bytes);
        for (const secret of SECRETS) assert.ok(!bytes.includes(secret), `${secret} leaked: ${bytes}`);
      });
    }
  }

  it('a stream whose events carry the provider key relays them redacted', async () => {
    const chunk = (content: string, finish: string | null) => JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta: { content }, finish_reason: finish }] });
    fakes.openai.answerRawNext({ status: 200, contentType: 'text/event-stream', body: `data: ${chunk(`your key is ${FAKE_OPENAI_KEY} and ${PROXY_TOKEN}`, null)}\n\ndata: ${chunk('', 'stop')}\n\ndata: [DONE]\n\n` });
    const { status, bytes } = await post('/v1/chat/completions', calls[1].body);
    assert.equal(status, 200);
    assert.ok(bytes.includes('your key is [redacted] and [redacted]'), bytes);
    for (const secret of SECRETS) assert.ok(!bytes.includes(secret), `${secret} leaked: ${bytes}`);
  });

  it('an Anthropic error event mid-stream that echoes the key never reaches the client', async () => {
    const start = JSON.stringify({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'x', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } });
    const error = JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: `bad x-api-key ${FAKE_ANTHROPIC_KEY}` } });
    fakes.anthropic.answerRawNext({ status: 200, contentType: 'text/event-stream', body: `event: message_start\ndata: ${start}\n\nevent: error\ndata: ${error}\n\n` });
    const { bytes } = await post('/v1/messages', calls[6].body);
    for (const secret of SECRETS) assert.ok(!bytes.includes(secret), `${secret} leaked: ${bytes}`);
  });
});
