import assert from 'node:assert/strict';
import {
  AllowanceExhaustedError,
  AuthenticationError,
  InternalError,
  MaxTokensExceededError,
  ModelNotConfiguredError,
  ModelNotFoundError,
  OutcomeUnknownError,
  PolicyUnavailableError,
  RateLimitedError,
  SqlError,
  StreamInterruptedError,
  TollgateClient,
  TollgateError,
  UpstreamError,
  ValidationError,
  WalletEmptyError,
} from '@tollgate/client';
import { ScriptedServer, type Scripted } from './scripted-server.js';

const chatBody = { model: 'gpt', messages: [{ role: 'user' as const, content: 'hi' }] };
const ok = { status: 200, body: { id: 'x', object: 'chat.completion', model: 'gpt', choices: [] } };
const html = '<html><body><h1>Something went wrong</h1></body></html>';

describe('@tollgate/client: typed errors and the retry rules of contract §7.3', () => {
  let server: ScriptedServer;
  let sleeps: number[];
  let client: TollgateClient;
  beforeEach(async () => {
    server = await new ScriptedServer().start();
    sleeps = [];
    client = new TollgateClient({ baseUrl: server.url, apiKey: 'tg-client-key', sleep: async (ms) => void sleeps.push(ms), random: () => 0.5, backoff: { baseMs: 100, maxMs: 10_000 } });
  });
  afterEach(() => server.close());

  describe('classification by status, then headers, then body code', () => {
    const rows: { name: string; answer: Scripted; error: new (...args: never[]) => TollgateError; check?: (e: any) => void }[] = [
      { name: '401', answer: { status: 401, body: { detail: 'bad key' } }, error: AuthenticationError },
      { name: '401 with an HTML page', answer: { status: 401, body: html }, error: AuthenticationError },
      { name: '402 wallet_empty', answer: { status: 402, headers: { 'x-service-reason': 'wallet_empty', 'x-service-recovery-url': '/console/billing' }, body: { error: { code: 'wallet_empty', message: 'empty', type: 'insufficient_quota', param: null } } }, error: WalletEmptyError, check: (e) => assert.equal(e.recoveryUrl, '/console/billing') },
      { name: '429 included_allowance_exhausted by header, body rewritten to HTML', answer: { status: 429, headers: { 'x-service-reason': 'included_allowance_exhausted', 'x-service-reset-at': '2026-12-01T00:00:00Z' }, body: html }, error: AllowanceExhaustedError, check: (e) => assert.equal(e.resetAt.toISOString(), '2026-12-01T00:00:00.000Z') },
      { name: '429 included_allowance_exhausted by body code, no headers', answer: { status: 429, body: { error: { code: 'included_allowance_exhausted', message: 'used up' } } }, error: AllowanceExhaustedError },
      { name: '404 model_not_found', answer: { status: 404, headers: { 'x-service-reason': 'unknown_model' }, body: { error: { code: 'model_not_found', message: 'no' } } }, error: ModelNotFoundError },
      { name: '400 model_not_configured', answer: { status: 400, body: { error: { code: 'model_not_configured', message: 'no route' } } }, error: ModelNotConfiguredError },
      { name: '400 max_tokens_exceeded', answer: { status: 400, body: { error: { code: 'max_tokens_exceeded', message: 'too many' } } }, error: MaxTokensExceededError },
      { name: '422 with a detail list', answer: { status: 422, body: { detail: [{ type: 'missing', loc: ['body', 'messages'], msg: 'Field required', input: null }] } }, error: ValidationError, check: (e) => assert.deepEqual(e.detail[0].loc, ['body', 'messages']) },
      { name: '400 relayed upstream error', answer: { status: 400, body: { error: { type: 'api_error', message: 'provider says no', code: null } } }, error: UpstreamError, check: (e) => assert.equal(e.message, 'provider says no') },
      { name: '400 SQL error', answer: { status: 400, body: { type: 'error', error_code: 'syntax_error', error_message: 'near x', context: {} } }, error: SqlError, check: (e) => assert.equal(e.errorCode, 'syntax_error') },
    ];
    for (const row of rows) {
      it(`raises ${row.error.name} for ${row.name}, without retrying`, async () => {
        server.respond(row.answer);
        const error = await client.chat(chatBody).catch((e: unknown) => e);
        assert.ok(error instanceof row.error, `${(error as Error).name}: ${(error as Error).message}`);
        row.check?.(error);
        assert.equal(server.requests.length, 1);
        assert.deepEqual(sleeps, []);
      });
    }

    it('raises PolicyUnavailableError and InternalError after their retries are used up', async () => {
      const tight = new TollgateClient({ baseUrl: server.url, maxRetries: 1, sleep: async () => {}, random: () => 0 });
      server.respond({ status: 503, headers: { 'x-service-reason': 'policy_unavailable' }, body: html }, { status: 503, headers: { 'x-service-reason': 'policy_unavailable' }, body: html });
      assert.ok((await tight.chat(chatBody).catch((e: unknown) => e)) instanceof PolicyUnavailableError);
      server.respond({ status: 500, body: { detail: 'oops' } }, { status: 500, body: { detail: 'oops' } });
      assert.ok((await tight.chat(chatBody).catch((e: unknown) => e)) instanceof InternalError);
    });
  });

  it('retries 500, 502, 503 and 504 with exponential backoff and full jitter, then succeeds', async () => {
    server.respond({ status: 500, body: {} }, { status: 502, body: {} }, { status: 503, body: {} }, { status: 504, body: {} }, ok);
    await client.chat(chatBody);
    assert.equal(server.requests.length, 5);
    assert.deepEqual(sleeps, [50, 100, 200, 400]); // random 0.5 × 100 ms × 2^attempt
  });

  it('waits at least Retry-After on 429 rate_limited', async () => {
    server.respond({ status: 429, headers: { 'x-service-reason': 'rate_limited', 'retry-after': '3' }, body: { error: { code: 'rate_limited' } } }, ok);
    await client.chat(chatBody);
    assert.deepEqual(sleeps, [3050]); // Retry-After, then the jitter on top (random 0.5 × 100 ms)
  });

  it('gives up after maxRetries and raises the last error', async () => {
    server.respond(...Array.from({ length: 5 }, () => ({ status: 429, headers: { 'x-service-reason': 'rate_limited', 'retry-after': '1' }, body: html })));
    const error = await client.chat(chatBody).catch((e: unknown) => e);
    assert.ok(error instanceof RateLimitedError);
    assert.equal(error.retryAfter, 1);
    assert.equal(server.requests.length, 5);
  });

  it('stops at once when the included allowance is exhausted', async () => {
    server.respond({ status: 429, headers: { 'x-service-reason': 'included_allowance_exhausted' }, body: html }, ok);
    assert.ok((await client.chat(chatBody).catch((e: unknown) => e)) instanceof AllowanceExhaustedError);
    assert.equal(server.requests.length, 1);
  });

  it('retries a 429 on /v1/messages only once by default, with no hint to wait for', async () => {
    const anthropic429 = { status: 429, body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } } };
    server.respond(anthropic429, anthropic429, anthropic429);
    const error = await client.messages({ model: 'claude', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    assert.ok(error instanceof RateLimitedError);
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[0]!.headers['x-api-key'], 'tg-client-key');
  });

  it('does not retry a lost connection on a model call: the outcome is unknown', async () => {
    server.respond({ destroy: true }, ok);
    const error = await client.chat(chatBody).catch((e: unknown) => e);
    assert.ok(error instanceof OutcomeUnknownError);
    assert.equal(error.status, 0);
    assert.equal(server.requests.length, 1);
  });

  it('retries a lost connection when told to', async () => {
    const retrying = new TollgateClient({ baseUrl: server.url, retryConnectionFailures: true, sleep: async () => {}, random: () => 0 });
    server.respond({ destroy: true }, ok);
    await retrying.chat(chatBody);
    assert.equal(server.requests.length, 2);
  });

  it('cancels the backoff and the call when the AbortSignal fires', async () => {
    const controller = new AbortController();
    const aborting = new TollgateClient({ baseUrl: server.url, sleep: async () => controller.abort(new Error('cancelled by caller')), random: () => 0 });
    server.respond({ status: 503, body: {} }, ok);
    await assert.rejects(aborting.chat(chatBody, { signal: controller.signal }), /cancelled by caller/);
    assert.equal(server.requests.length, 1);
  });

  describe('streams (contract §6.1)', () => {
    const chunk = (content: string, finish: string | null = null) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'gpt', choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;
    const event = (data: object) => `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`;

    it('yields chat chunks of a stream that ends with a finish_reason', async () => {
      server.respond({ sse: [chunk('Hel'), chunk('lo'), chunk('', 'stop'), 'data: [DONE]\n\n'] });
      let text = '';
      for await (const c of client.chatStream(chatBody)) text += c.choices[0]?.delta.content ?? '';
      assert.equal(text, 'Hello');
    });

    it('raises StreamInterruptedError with the partial text when a chat stream ends without a finish_reason', async () => {
      server.respond({ sse: [chunk('Hel'), chunk('lo')] });
      const error = await (async () => {
        for await (const _ of client.chatStream(chatBody));
      })().catch((e: unknown) => e);
      assert.ok(error instanceof StreamInterruptedError);
      assert.equal(error.partialText, 'Hello');
    });

    it('raises StreamInterruptedError when the socket breaks mid-stream, never OutcomeUnknownError', async () => {
      server.respond({ sse: [chunk('partial')], breakAfter: true });
      const error = await (async () => {
        for await (const _ of client.chatStream(chatBody));
      })().catch((e: unknown) => e);
      assert.ok(error instanceof StreamInterruptedError);
      assert.equal(error.partialText, 'partial');
    });

    it('raises StreamInterruptedError for a /v1/messages stream without message_stop', async () => {
      server.respond({ sse: [event({ type: 'message_start', message: {} }), event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } })] });
      const error = await (async () => {
        for await (const _ of client.messagesStream({ model: 'c', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }));
      })().catch((e: unknown) => e);
      assert.ok(error instanceof StreamInterruptedError);
      assert.equal(error.partialText, 'Hi');
    });

    it('checks the Content-Type: a JSON error instead of a stream is raised as its typed error', async () => {
      server.respond({ status: 402, headers: { 'x-service-reason': 'wallet_empty' }, body: { error: { code: 'wallet_empty' } } });
      const error = await (async () => {
        for await (const _ of client.chatStream(chatBody));
      })().catch((e: unknown) => e);
      assert.ok(error instanceof WalletEmptyError);
    });
  });
});
