import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { countTokens } from '../../../../packages/middleware/src/tokenize/index.js';
import { FAKE_BEDROCK_API_KEY, FAKE_BEDROCK_CREDENTIALS } from '../../../fakes/index.js';
import { postJson, readSse } from '../../../support/gateway.js';
import { TEST_KEY, startBedrockStack, type BedrockStack } from './bedrock-stack.js';

const auth = { authorization: `Bearer ${TEST_KEY}` };
const longText = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');

function streamChat(stack: BedrockStack, content = 'tell me a long story'): Promise<Response> {
  return fetch(`${stack.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify({ model: 'claude-bedrock', stream: true, messages: [{ role: 'user', content }] }) });
}

/** The settlement of a broken stream runs after the client saw the break: wait for its slot to be freed, bounded. */
async function settled(stack: BedrockStack): Promise<Awaited<ReturnType<BedrockStack['gateway']['gate']['admin']['usage']>>> {
  for (let i = 0; i < 300; i++) {
    const usage = await stack.gateway.gate.admin.usage('acme');
    if (usage.inFlight === 0) return usage;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('the request never settled');
}

describe('Bedrock failures: signatures, in-stream exceptions and broken framing', () => {
  let stack: BedrockStack;
  afterEach(() => stack.close());

  it('answers the upstream auth error (403 api_error, InvalidSignatureException) when the secret is wrong, and bills nothing', async () => {
    stack = await startBedrockStack({ credentials: { accessKeyId: FAKE_BEDROCK_CREDENTIALS.accessKeyId, secretAccessKey: 'not-the-secret-0123456789abcdef' } });
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'claude-bedrock', messages: [{ role: 'user', content: 'hi' }] }, auth);
    assert.equal(response.status, 403);
    assert.equal(response.body.error.type, 'api_error');
    assert.equal(response.body.error.code, 'InvalidSignatureException');
    assert.match(response.body.error.message, /signature we calculated does not match/);
    assert.equal(response.headers.get('x-should-retry'), 'false');
    assert.equal(stack.bedrock.requests.length, 1, 'a 403 is not retried');
    const usage = await settled(stack);
    assert.deepEqual([usage.requests, usage.inputTokens, usage.outputTokens], [0, 0, 0]);
  });

  it('answers the same upstream auth error in the Anthropic envelope on /v1/messages', async () => {
    stack = await startBedrockStack({ credentials: { accessKeyId: FAKE_BEDROCK_CREDENTIALS.accessKeyId, secretAccessKey: 'not-the-secret-0123456789abcdef' } });
    const response = await postJson(`${stack.gateway.url}/v1/messages`, { model: 'claude-bedrock', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, { 'x-api-key': TEST_KEY });
    assert.equal(response.status, 403);
    assert.deepEqual(response.body.error.type, 'api_error');
    assert.equal(response.body.type, 'error');
  });

  it('authenticates with a Bedrock API key as a bearer token instead of a signature; a wrong key is the upstream auth error', async () => {
    stack = await startBedrockStack({ apiKey: FAKE_BEDROCK_API_KEY });
    const ok = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'claude-bedrock', messages: [{ role: 'user', content: 'hi' }] }, auth);
    assert.equal(ok.status, 200);
    assert.equal(stack.bedrock.requests.at(-1)!.headers.authorization, `Bearer ${FAKE_BEDROCK_API_KEY}`);
    await stack.close();
    stack = await startBedrockStack({ apiKey: 'ABSKnot-the-key-0123456789abcdef' });
    const refused = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'claude-bedrock', messages: [{ role: 'user', content: 'hi' }] }, auth);
    assert.deepEqual([refused.status, refused.body.error.type, refused.body.error.code], [403, 'api_error', 'UnrecognizedClientException']);
    assert.doesNotMatch(refused.text, /ABSKnot-the-key/);
  });

  it('relays a throttlingException sent before any output as 429 after retrying it, a JSON error not a stream', async () => {
    stack = await startBedrockStack();
    stack.bedrock.failStream({ kind: 'exception', type: 'throttlingException', message: 'Too many tokens, please wait before trying again.', afterEvents: 0 });
    const response = await streamChat(stack);
    assert.equal(response.status, 429);
    assert.match(response.headers.get('content-type') ?? '', /application\/json/);
    const body = (await response.json()) as { error: { type: string; message: string; code: string } };
    assert.deepEqual(body.error, { message: 'Too many tokens, please wait before trying again.', type: 'api_error', param: null, code: 'ThrottlingException' });
    assert.equal(stack.bedrock.requests.length, 2, 'transient: retried once (maxRetries 1)');
    await settled(stack);
  });

  it('ends the stream abnormally on a mid-stream modelStreamErrorException: no finish_reason, partial output billed, slot freed', async () => {
    stack = await startBedrockStack();
    stack.bedrock.reply({ text: longText });
    // messageStart, then the deltas 'word0 ' … 'word4 ', then the exception.
    stack.bedrock.failStream({ kind: 'exception', type: 'modelStreamErrorException', message: 'The model stream failed', afterEvents: 6 });
    const { events, broke } = await readSse(await streamChat(stack));
    assert.equal(broke, true);
    assert.ok(events.every((e) => !(JSON.parse(e.data) as OpenAI.ChatCompletionChunk).choices.some((c) => c.finish_reason)), 'no finish_reason on a failed stream');
    const usage = await settled(stack);
    // contract §1: partial output before a failure is billed; Bedrock sent no usage, so the tokenizer counts what was relayed.
    assert.equal(usage.requests, 1);
    assert.equal(usage.outputTokens, countTokens('word0 word1 word2 word3 word4 '));
    assert.ok(usage.inputTokens > 0);
    assert.equal((await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'claude-bedrock', messages: [{ role: 'user', content: 'next' }] }, auth)).status, 200, 'the one concurrency slot was freed');
  });

  for (const kind of ['truncated', 'bad-crc'] as const) {
    it(`ends the stream abnormally on a ${kind} frame, billing what was relayed and freeing the slot`, async () => {
      stack = await startBedrockStack();
      stack.bedrock.reply({ text: longText });
      stack.bedrock.failStream({ kind, afterEvents: 5 });
      const { events, broke } = await readSse(await streamChat(stack));
      assert.equal(broke, true);
      assert.ok(events.every((e) => !(JSON.parse(e.data) as OpenAI.ChatCompletionChunk).choices.some((c) => c.finish_reason)));
      const usage = await settled(stack);
      assert.equal(usage.requests, 1);
      assert.equal(usage.outputTokens, countTokens('word0 word1 word2 word3 '));
      stack.bedrock.failStream(undefined);
      assert.equal((await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'claude-bedrock', messages: [{ role: 'user', content: 'next' }] }, auth)).status, 200);
    });
  }

  it('retries a stream whose very first frame is garbage, then answers 502 without a stream', async () => {
    stack = await startBedrockStack();
    stack.bedrock.failStream({ kind: 'bad-crc', afterEvents: 0 });
    const response = await streamChat(stack);
    assert.equal(response.status, 502);
    assert.match(response.headers.get('content-type') ?? '', /application\/json/);
    assert.equal(stack.bedrock.requests.length, 2);
    assert.equal((await settled(stack)).inFlight, 0);
  });

  it('refuses a stream message announced larger than the relay limit before buffering it: 502 upstream_answer_too_large, not retried', async () => {
    stack = await startBedrockStack();
    // A length prelude of 0x7f7f7f7f bytes (about 2 GiB), then nothing: Tollgate must not wait for or allocate it.
    stack.bedrock.answerRawNext({ status: 200, body: '\x7f\x7f\x7f\x7f', contentType: 'application/vnd.amazon.eventstream' });
    const response = await streamChat(stack);
    assert.equal(response.status, 502);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'upstream_answer_too_large');
    assert.equal(stack.bedrock.requests.length, 1);
    assert.equal((await settled(stack)).inFlight, 0);
  });

  it('never shows a normal end for a stream cut after messageStop but before its metadata, and bills by the tokenizer', async () => {
    stack = await startBedrockStack();
    stack.bedrock.reply({ text: 'short answer' });
    // messageStart, two text deltas, contentBlockStop, messageStop: then the connection dies before metadata.
    stack.bedrock.dropAfterChunks(5);
    const { events, broke } = await readSse(await streamChat(stack));
    assert.equal(broke, true);
    assert.ok(events.every((e) => !(JSON.parse(e.data) as OpenAI.ChatCompletionChunk).choices.some((c) => c.finish_reason)));
    const usage = await settled(stack);
    assert.equal(usage.outputTokens, countTokens('short answer'));
  });
});
