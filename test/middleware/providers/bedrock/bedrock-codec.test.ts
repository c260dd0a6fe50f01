import assert from 'node:assert/strict';
import type { ProviderConfig } from '../../../../packages/middleware/src/config/index.js';
import { ServiceError } from '../../../../packages/middleware/src/errors/index.js';
import { finishReasonFromConverse } from '../../../../packages/middleware/src/providers/bedrock/map-stop-reason.js';
import { credentialsOf, regionOf, signBedrockCall } from '../../../../packages/middleware/src/providers/bedrock/sign-request.js';
import { parseBedrockError } from '../../../../packages/middleware/src/providers/bedrock/bedrock-error.js';
import { bedrockProvider } from '../../../../packages/middleware/src/providers/bedrock/index.js';
import { codecFor, IncompleteStream, type RouteTarget } from '../../../../packages/middleware/src/providers/index.js';

const provider: ProviderConfig = { kind: 'bedrock', headers: {}, timeoutMs: 1000, maxRetries: 0, retryBaseMs: 0, region: 'eu-west-3', credentials: { accessKeyId: 'AKIAUNIT', secretAccessKey: 'unit-secret' } };
const target: RouteTarget = { provider, model: 'arn:aws:bedrock:eu-west-3:123456789012:inference-profile/eu.anthropic.claude-sonnet-4-5-20250929-v1:0', alias: 'claude', defaultMaxTokens: 1024 };
const chat = codecFor('chat', provider);

function request(body: Record<string, unknown>): Record<string, any> {
  return chat.request({ model: 'claude', ...body }, target, {}) as Record<string, any>;
}

describe('Bedrock codec: request, answer and stream translation, signing, errors', () => {
  it('calls the regional endpoint with the model id (an ARN here) as one encoded path segment, signed for that region', () => {
    const prepared = bedrockProvider.prepare(provider, chat.upstreamPath(target, true))({ messages: [] }, {});
    assert.equal(prepared.origin, 'https://bedrock-runtime.eu-west-3.amazonaws.com');
    assert.equal(prepared.path, `/model/${encodeURIComponent(target.model)}/converse-stream`);
    assert.ok(!prepared.path.slice('/model/'.length).includes(':') && prepared.path.split('/').length === 4);
    assert.match(prepared.headers.Authorization!, /^AWS4-HMAC-SHA256 Credential=AKIAUNIT\/\d{8}\/eu-west-3\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-date, Signature=[0-9a-f]{64}$/);
    // Host and Content-Length are undici's to send (the same values): any header sent counts as a secret to redact.
    assert.deepEqual(Object.keys(prepared.headers).sort(), ['Authorization', 'X-Amz-Date', 'accept', 'content-type']);
    assert.equal(prepared.body, '{"messages":[]}');
  });

  it('signs the session token of temporary credentials, read from the environment when the config has none', () => {
    const env = { AWS_ACCESS_KEY_ID: 'ASIATEMP', AWS_SECRET_ACCESS_KEY: 's', AWS_SESSION_TOKEN: 'token123', AWS_REGION: 'ap-south-1' };
    const bare: ProviderConfig = { kind: 'bedrock', headers: {}, timeoutMs: 1000, maxRetries: 0, retryBaseMs: 0 };
    assert.deepEqual(credentialsOf(bare, env), { accessKeyId: 'ASIATEMP', secretAccessKey: 's', sessionToken: 'token123' });
    assert.equal(regionOf(bare, env), 'ap-south-1');
    assert.equal(regionOf(bare, { AWS_DEFAULT_REGION: 'sa-east-1' }), 'sa-east-1');
    assert.equal(regionOf(bare, {}), 'us-east-1');
    const temporary: ProviderConfig = { ...bare, credentials: { accessKeyId: 'ASIATEMP', secretAccessKey: 's', sessionToken: 'token123' } };
    const headers = signBedrockCall({ origin: 'http://127.0.0.1:1', path: '/model/m/converse', headers: {}, body: '{}' }, temporary);
    assert.equal(headers['X-Amz-Security-Token'], 'token123');
    assert.match(headers.Authorization!, /SignedHeaders=[^,]*x-amz-security-token/);
  });

  it('refuses to call Bedrock without credentials: 400 model_not_configured naming what to set', () => {
    const bare: ProviderConfig = { kind: 'bedrock', headers: {}, timeoutMs: 1000, maxRetries: 0, retryBaseMs: 0 };
    assert.throws(() => credentialsOf(bare, {}), (error: ServiceError) => error.kind === 'model_not_configured' && /AWS_ACCESS_KEY_ID/.test(error.message));
    assert.throws(() => credentialsOf({ ...bare, credentials: { accessKeyId: 'AKIAX' } }, { AWS_SECRET_ACCESS_KEY: 'not used' }), (error: ServiceError) => error.kind === 'model_not_configured' && /needs both/.test(error.message));
  });

  it('merges consecutive tool results into one user turn and writes assistant tool calls as toolUse only', () => {
    const body = request({
      messages: [
        { role: 'user', content: 'two lookups' },
        { role: 'assistant', content: '', tool_calls: [{ id: 't1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } }, { id: 't2', type: 'function', function: { name: 'b', arguments: '' } }] },
        { role: 'tool', tool_call_id: 't1', content: 'one' },
        { role: 'tool', tool_call_id: 't2', content: [{ type: 'text', text: 'two' }] },
      ],
    });
    assert.deepEqual(body.messages, [
      { role: 'user', content: [{ text: 'two lookups' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'a', input: { x: 1 } } }, { toolUse: { toolUseId: 't2', name: 'b', input: {} } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'one' }] } }, { toolResult: { toolUseId: 't2', content: [{ text: 'two' }] } }] },
    ]);
  });

  it('answers 400 for tool-call arguments that are not a JSON object', () => {
    assert.throws(() => request({ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', tool_calls: [{ id: 't', type: 'function', function: { name: 'a', arguments: '[1]' } }] }] }), (error: ServiceError) => error.status === 400);
  });

  it('maps tool_choice: auto → auto, a named function → tool; none leaves the tools out unless earlier turns used them', () => {
    const tools = [{ type: 'function', function: { name: 'f' } }];
    assert.deepEqual(request({ messages: [{ role: 'user', content: 'x' }], tools, tool_choice: 'auto' }).toolConfig, { tools: [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object', properties: {} } } } }], toolChoice: { auto: {} } });
    assert.deepEqual(request({ messages: [{ role: 'user', content: 'x' }], tools, tool_choice: { type: 'function', function: { name: 'f' } } }).toolConfig.toolChoice, { tool: { name: 'f' } });
    assert.equal(request({ messages: [{ role: 'user', content: 'x' }], tools, tool_choice: 'none' }).toolConfig, undefined);
    const used = request({ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 't', content: 'r' }], tools, tool_choice: 'none' });
    assert.deepEqual(used.toolConfig, { tools: [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object', properties: {} } } } }] });
  });

  it('maps every Converse stop reason like the other providers map theirs', () => {
    const table = Object.fromEntries(['end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'guardrail_intervened', 'content_filtered', 'model_context_window_exceeded'].map((reason) => [reason, finishReasonFromConverse(reason)]));
    assert.deepEqual(table, { end_turn: 'stop', tool_use: 'tool_calls', max_tokens: 'length', stop_sequence: 'stop', guardrail_intervened: 'content_filter', content_filtered: 'content_filter', model_context_window_exceeded: 'length' });
  });

  it('bills a Converse answer whose usage is not token counts by the tokenizer (the report is rejected at the codec boundary)', () => {
    const { usage } = chat.response({ output: { message: { role: 'assistant', content: [{ text: 'hi' }] } }, stopReason: 'end_turn', usage: { inputTokens: '5', outputTokens: 1 } }, target);
    assert.equal(usage.reported, false);
    assert.match(usage.rejected ?? '', /input/);
  });

  it('counts cache writes and reads as parts of the prompt', () => {
    const { usage } = chat.response({ output: { message: { role: 'assistant', content: [{ text: 'hi' }] } }, stopReason: 'end_turn', usage: { inputTokens: 10, outputTokens: 2, cacheReadInputTokens: 100, cacheWriteInputTokens: 50 } }, target);
    assert.deepEqual(usage, { inputTokens: 160, outputTokens: 2, reported: true, cachedInputTokens: 100, cacheWriteTokens: 50 });
  });

  it('ignores stream events it does not read, and fails the stream on a payload that is not its event type', () => {
    const translator = chat.stream(target, {});
    assert.deepEqual(translator.push({ event: 'someFutureEvent', data: '{}' }), []);
    assert.throws(() => translator.push({ event: 'contentBlockDelta', data: '{"delta":"nope"}' }), IncompleteStream);
    assert.throws(() => translator.push({ event: 'messageStop', data: 'not json' }), IncompleteStream);
  });

  it('closes a stream that ended after messageStop without metadata with its finish_reason, and fails one without messageStop', () => {
    const finished = chat.stream(target, {});
    finished.push({ event: 'messageStart', data: '{"role":"assistant"}' });
    finished.push({ event: 'messageStop', data: '{"stopReason":"max_tokens"}' });
    const closing = finished.end();
    assert.equal((closing[0]!.data as { choices: { finish_reason: string }[] }).choices[0]!.finish_reason, 'length');
    assert.equal(closing.at(-1)!.data, '[DONE]');
    const cut = chat.stream(target, {});
    cut.push({ event: 'messageStart', data: '{"role":"assistant"}' });
    assert.throws(() => cut.end(), IncompleteStream);
  });

  it('reads the error type from x-amzn-errortype and the message from the body', () => {
    assert.deepEqual(parseBedrockError({ message: 'Too many requests' }, { 'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/' }), { message: 'Too many requests', code: 'ThrottlingException' });
    assert.deepEqual(parseBedrockError({ Message: 'denied', __type: 'com.amazon.coral.service#AccessDeniedException' }), { message: 'denied', code: 'AccessDeniedException' });
    assert.deepEqual(parseBedrockError('<html>bad gateway</html>'), { message: undefined, code: undefined });
  });
});
