import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { zodOutputFormat } from '@anthropic-ai/sdk/helpers/zod';
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { postJson, readSse } from '../../support/gateway.js';
import { TEST_KEY, startIssue5Stack, type Issue5Stack } from '../endpoints-issue5/issue5-stack.js';

const Weather = z.object({ city: z.string(), celsius: z.number(), sunny: z.boolean() });
const answer = { city: 'Lisbon', celsius: 21, sunny: true };
const user = (content: string) => [{ role: 'user' as const, content }];

describe('structured output on translated routes (contract §4.3 rule 1)', () => {
  let stack: Issue5Stack;
  let openai: OpenAI;
  let anthropic: Anthropic;
  beforeEach(async () => {
    stack = await startIssue5Stack();
    openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
    for (const fake of [stack.openai, stack.anthropic, stack.gemini]) fake.reply({ json: answer });
  });
  afterEach(() => stack.close());

  const lastAnthropicRequest = () => stack.anthropic.requests.at(-1)!.body as { tools?: { name: string; input_schema: { type: string; properties: object } }[]; tool_choice?: unknown };

  describe('on an Anthropic route: a forced tool whose input is the answer', () => {
    it('gives openai’s chat.completions.parse a parsed object, with nothing reported as dropped', async () => {
      const { data, response } = await openai.chat.completions.parse({ model: 'claude', messages: user('Weather in Lisbon?'), response_format: zodResponseFormat(Weather, 'weather') }).withResponse();
      assert.deepEqual(data.choices[0]?.message.parsed, answer);
      assert.equal(data.choices[0]?.finish_reason, 'stop');
      assert.equal(data.choices[0]?.message.tool_calls?.length ?? 0, 0);
      assert.equal(response.headers.get('x-service-dropped-params'), null);
      const sent = lastAnthropicRequest();
      assert.deepEqual(sent.tool_choice, { type: 'tool', name: 'json', disable_parallel_tool_use: true });
      assert.equal(sent.tools?.[0]?.name, 'json');
      assert.deepEqual(Object.keys(sent.tools?.[0]?.input_schema.properties ?? {}), ['city', 'celsius', 'sunny']);
    });

    it('unwraps the answer tool in a stream too: the SDK’s stream helper parses the final message', async () => {
      const stream = openai.chat.completions.stream({ model: 'claude', messages: user('Weather in Lisbon?'), response_format: zodResponseFormat(Weather, 'weather') });
      const final = await stream.finalChatCompletion();
      assert.deepEqual(final.choices[0]?.message.parsed, answer);
      assert.equal(final.choices[0]?.finish_reason, 'stop');
    });

    it('gives openai’s responses.parse a parsed object, streamed or not', async () => {
      const { data, response } = await openai.responses.parse({ model: 'claude', input: 'Weather in Lisbon?', text: { format: zodTextFormat(Weather, 'weather') } }).withResponse();
      assert.deepEqual(data.output_parsed, answer);
      assert.equal(response.headers.get('x-service-dropped-params'), null);
      assert.equal(lastAnthropicRequest().tools?.[0]?.name, 'json');
      const streamed = await openai.responses.stream({ model: 'claude', input: 'Weather in Lisbon?', text: { format: zodTextFormat(Weather, 'weather') } }).finalResponse();
      assert.deepEqual(streamed.output_parsed, answer);
    });

    it('lets the model call the client’s own tools or answer (tool_choice any), and leaves their calls as tool calls', async () => {
      stack.anthropic.reply({ toolCalls: [{ name: 'lookup', arguments: { city: 'Lisbon' } }] });
      const completion = await openai.chat.completions.create({
        model: 'claude',
        messages: user('Weather in Lisbon?'),
        tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
        response_format: zodResponseFormat(Weather, 'weather'),
      });
      assert.deepEqual(lastAnthropicRequest().tool_choice, { type: 'any' });
      assert.deepEqual(lastAnthropicRequest().tools?.map((t) => t.name), ['lookup', 'json']);
      assert.equal(completion.choices[0]?.finish_reason, 'tool_calls');
      assert.equal(completion.choices[0]?.message.tool_calls?.[0]?.type === 'function' && completion.choices[0].message.tool_calls[0].function.name, 'lookup');
    });

    it('reports what cannot be a tool’s input — a schema whose answer is not an object — and sends no tool', async () => {
      const arraySchema = { type: 'json_schema', json_schema: { name: 'list', schema: { type: 'array', items: { type: 'string' } } } };
      const chat = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'claude', messages: user('List three cities'), response_format: arraySchema }, { authorization: `Bearer ${TEST_KEY}` });
      assert.equal(chat.status, 200);
      assert.equal(chat.headers.get('x-service-dropped-params'), 'response_format');
      assert.equal(lastAnthropicRequest().tools, undefined);
      const responses = await postJson(`${stack.gateway.url}/v1/responses`, { model: 'claude', input: 'List three cities', text: { format: { type: 'json_schema', name: 'list', schema: { type: 'array', items: { type: 'string' } } } } }, { authorization: `Bearer ${TEST_KEY}` });
      assert.equal(responses.status, 200);
      assert.equal(responses.headers.get('x-service-dropped-params'), 'text');
      assert.equal(lastAnthropicRequest().tools, undefined);
    });

    it('streams the answer as text deltas, in raw bytes, with end_turn mapped to stop', async () => {
      const response = await fetch(`${stack.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'claude', stream: true, messages: user('Weather?'), response_format: { type: 'json_object' } }) });
      const { events, broke } = await readSse(response);
      assert.equal(broke, false);
      const chunks = events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data) as { choices: { delta: { content?: string; tool_calls?: unknown }; finish_reason: string | null }[] });
      assert.equal(chunks.some((c) => c.choices[0]?.delta.tool_calls !== undefined), false);
      assert.deepEqual(JSON.parse(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')), answer);
      assert.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'stop');
      assert.deepEqual(lastAnthropicRequest().tools?.[0]?.input_schema, { type: 'object' });
    });
  });

  describe('Anthropic’s output_config / output_format on OpenAI and Gemini routes', () => {
    it('gives @anthropic-ai/sdk’s messages.parse a parsed object from an OpenAI route, sent as a strict json_schema', async () => {
      const message = await anthropic.messages.parse({ model: 'gpt', max_tokens: 256, messages: user('Weather in Lisbon?'), output_config: { format: zodOutputFormat(Weather) } });
      assert.deepEqual(message.parsed_output, answer);
      const sent = stack.openai.requests.at(-1)!.body as { response_format?: { type: string; json_schema: { name: string; strict?: boolean; schema: { properties: object } } } };
      assert.equal(sent.response_format?.type, 'json_schema');
      assert.equal(sent.response_format?.json_schema.strict, true);
      assert.deepEqual(Object.keys(sent.response_format?.json_schema.schema.properties ?? {}), ['city', 'celsius', 'sunny']);
    });

    it('sends output_format to Gemini as responseMimeType and responseJsonSchema, in a stream too', async () => {
      const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
      const plain = await postJson(`${stack.gateway.url}/v1/messages`, { model: 'gemini', max_tokens: 64, messages: user('City?'), output_format: { type: 'json_schema', schema } }, { 'x-api-key': TEST_KEY });
      assert.equal(plain.status, 200);
      assert.equal(plain.headers.get('x-service-dropped-params'), null);
      assert.deepEqual(JSON.parse(plain.body.content[0].text), answer);
      const config = (stack.gemini.requests.at(-1)!.body as { generationConfig: Record<string, unknown> }).generationConfig;
      assert.equal(config.responseMimeType, 'application/json');
      assert.deepEqual(config.responseJsonSchema, schema);
      const stream = anthropic.messages.stream({ model: 'gemini', max_tokens: 64, messages: user('City?'), output_config: { format: zodOutputFormat(Weather) } });
      assert.deepEqual((await stream.finalMessage()).parsed_output, answer);
    });

    it('reports output_config when it asks for an effort chat cannot express, and output_format when it is not a schema of an object', async () => {
      const effort = await postJson(`${stack.gateway.url}/v1/messages`, { model: 'gpt', max_tokens: 64, messages: user('hi'), output_config: { effort: 'high' } }, { 'x-api-key': TEST_KEY });
      assert.equal(effort.status, 200);
      assert.equal(effort.headers.get('x-service-dropped-params'), 'output_config');
      const array = await postJson(`${stack.gateway.url}/v1/messages`, { model: 'gemini', max_tokens: 64, messages: user('hi'), output_format: { type: 'json_schema', schema: { type: 'array' } } }, { 'x-api-key': TEST_KEY });
      assert.equal(array.headers.get('x-service-dropped-params'), 'output_format');
      assert.equal((stack.gemini.requests.at(-1)!.body as { generationConfig: Record<string, unknown> }).generationConfig.responseMimeType, undefined);
    });
  });
});
