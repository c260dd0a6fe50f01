import assert from 'node:assert/strict';
import { OutcomeUnknownError, TollgateClient } from '@tollgate/client';
import { ScriptedServer } from '../client/scripted-server.js';

const chatBody = { model: 'gpt', messages: [{ role: 'user' as const, content: 'hi' }] };
const ok = { status: 200, body: { id: 'x', object: 'chat.completion', model: 'gpt', choices: [] } };

/**
 * A key read from a file or a secret store with its trailing newline (`readFileSync('key.txt', 'utf8')`) cannot be
 * put in an HTTP header: undici refuses it before anything is sent. The client reports that as
 * OutcomeUnknownError "No answer from Tollgate …; the request may have run" (contract §7.3 rule 4) and, with
 * retryConnectionFailures, sleeps and retries it maxRetries times: a request that never left the process is
 * described as one that may have run and been billed.
 */
describe('@tollgate/client: a key that cannot be sent as a header', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await new ScriptedServer().start();
    server.respond(ok, ok, ok, ok, ok);
  });
  afterEach(() => server.close());

  it('fails at once with an error naming the apiKey, never "the request may have run", and no retries', async () => {
    let sleeps = 0;
    const error = await (async () => {
      const tg = new TollgateClient({ baseUrl: server.url, apiKey: 'tg-live-0123456789abcdef0123456789abcdef\n', retryConnectionFailures: true, sleep: async () => void sleeps++ });
      return tg.chat(chatBody);
    })().catch((e: unknown) => e);
    assert.equal(server.requests.length, 0, 'nothing was sent');
    assert.ok(error instanceof Error, String(error));
    assert.ok(!(error instanceof OutcomeUnknownError), `raised ${error.name}: ${error.message}`);
    assert.match(error.message, /apiKey/);
    assert.equal(sleeps, 0, `backed off ${sleeps} times before giving up on a request that could never be sent`);
  });

  it('raises an Idempotency-Key that cannot be a header as the caller\'s mistake, not an unknown outcome', async () => {
    const tg = new TollgateClient({ baseUrl: server.url, apiKey: 'k', retryConnectionFailures: true, sleep: async () => undefined });
    const error = await tg.chat(chatBody, { idempotencyKey: 'order-42\r\n' }).catch((e: unknown) => e);
    assert.equal(server.requests.length, 0, 'nothing was sent');
    assert.ok(error instanceof Error, String(error));
    assert.ok(!(error instanceof OutcomeUnknownError), `raised ${error.name}: ${error.message}`);
  });
});
