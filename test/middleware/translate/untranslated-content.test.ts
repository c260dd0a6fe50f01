import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startBedrockStack, type BedrockStack } from '../providers/bedrock/bedrock-stack.js';
import { TEST_KEY, startIssue5Stack, type Issue5Stack } from '../endpoints-issue5/issue5-stack.js';

/**
 * Content a translation has no form for on its route used to be left out without a word: the model answered a
 * question about a document it never saw, 200 and billed. A plain-text document is text to a chat model; anything
 * else a client sends that its route cannot take answers 400, before the provider is called and with nothing billed.
 */
describe('content a translating route cannot take', function () {
  let stack: Issue5Stack;
  let bedrock: BedrockStack;
  let anthropic: Anthropic;
  let openai: OpenAI;
  before(async () => {
    stack = await startIssue5Stack();
    bedrock = await startBedrockStack();
    anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
    openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  });
  after(async () => {
    await stack.close();
    await bedrock.close();
  });

  const pdf = { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQK' } as const;
  const calls = () => stack.openai.requests.length + stack.anthropic.requests.length + stack.gemini.requests.length + bedrock.bedrock.requests.length;

  async function refused(send: () => Promise<unknown>, type: string): Promise<void> {
    const before = calls();
    const wallet = (await stack.gateway.gate.admin.usage('acme')).wallet;
    const error = (await send().catch((caught: unknown) => caught)) as { status?: number; message?: string };
    assert.equal(error.status, 400, String(error));
    // The Anthropic SDK's message holds the body's JSON (its quotes escaped), the openai SDK's the message itself.
    assert.match(String(error.message), new RegExp(`content of type \\\\?"${type}\\\\?" cannot be sent to this model`));
    assert.equal(calls(), before, 'the provider was not called');
    assert.equal((await stack.gateway.gate.admin.usage('acme')).wallet, wallet, 'nothing billed');
  }

  it('an Anthropic client\'s plain-text document reaches an OpenAI route as text', async () => {
    await anthropic.messages.create({
      model: 'gpt',
      max_tokens: 16,
      messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'The secret word is banana.' } }, { type: 'text', text: 'What is the secret word?' }] }],
    });
    const sent = stack.openai.requests.at(-1)!.body as { messages: { content: unknown }[] };
    assert.deepEqual(sent.messages.at(-1)!.content, [{ type: 'text', text: 'The secret word is banana.' }, { type: 'text', text: 'What is the secret word?' }]);
  });

  it('an Anthropic client\'s PDF document on an OpenAI route answers 400 in the Anthropic envelope', async () => {
    await refused(() => anthropic.messages.create({ model: 'gpt', max_tokens: 16, messages: [{ role: 'user', content: [{ type: 'document', source: pdf }, { type: 'text', text: 'Summarize.' }] }] }), 'document');
    const error = (await anthropic.messages.create({ model: 'gpt', max_tokens: 16, messages: [{ role: 'user', content: [{ type: 'document', source: pdf }] }] }).catch((caught: unknown) => caught)) as { error: unknown };
    assert.deepEqual(error.error, { type: 'error', error: { type: 'invalid_request_error', message: 'messages.0.content.0: content of type "document" cannot be sent to this model; its route takes text, images, tool results and plain-text documents' } });
  });

  it('an assistant turn\'s thinking block is still left out on an OpenAI route (an earlier turn\'s workings)', async () => {
    const message = await anthropic.messages.create({
      model: 'gpt',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 'sig' }, { type: 'text', text: 'hello' }] }, { role: 'user', content: 'again' }],
    });
    assert.equal(message.type, 'message');
  });

  it('a chat client\'s file part on a Gemini route answers 400', async () => {
    const file = { type: 'file' as const, file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQK', filename: 'a.pdf' } };
    await refused(() => openai.chat.completions.create({ model: 'gemini', messages: [{ role: 'user', content: [file, { type: 'text', text: 'Summarize.' }] }] }), 'file');
  });

  it('a chat client\'s audio part on a Bedrock route answers 400', async () => {
    const onBedrock = new OpenAI({ baseURL: `${bedrock.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    const audio = { type: 'input_audio' as const, input_audio: { data: 'UklGRg==', format: 'wav' as const } };
    const before = bedrock.bedrock.requests.length;
    const error = (await onBedrock.chat.completions.create({ model: 'claude-bedrock', messages: [{ role: 'user', content: [audio, { type: 'text', text: 'Transcribe.' }] }] }).catch((caught: unknown) => caught)) as { status?: number; message?: string };
    assert.equal(error.status, 400);
    assert.match(String(error.message), /content of type "input_audio" cannot be sent to this model/);
    assert.equal(bedrock.bedrock.requests.length, before);
  });

  it('a Responses client\'s input_file on an Anthropic route (through chat) answers 400', async () => {
    await refused(() => openai.responses.create({ model: 'claude', input: [{ role: 'user', content: [{ type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0xLjQK', filename: 'a.pdf' }, { type: 'input_text', text: 'Summarize.' }] }] }), 'input_file');
  });
});
