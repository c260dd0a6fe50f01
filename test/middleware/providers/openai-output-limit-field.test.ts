import assert from 'node:assert/strict';
import type { ProviderConfig } from '../../../packages/middleware/src/config/index.js';
import { chatOutputLimitFieldOf } from '../../../packages/middleware/src/providers/index.js';

const openai = (settings: Partial<ProviderConfig> = {}): ProviderConfig => ({ kind: 'openai', headers: {}, timeoutMs: 1000, maxRetries: 0, retryBaseMs: 0, ...settings });

// The field an output budget Tollgate sets goes in (README "Reservations"); the gateway tests
// (reservation-worst-case.test.ts) show each field on the wire.
describe('which chat field an OpenAI-kind deployment takes an output budget in', () => {
  it('OpenAI itself, by default or by an *.openai.com or Azure host: max_completion_tokens, which its reasoning models require', () => {
    assert.equal(chatOutputLimitFieldOf(openai()), 'max_completion_tokens');
    assert.equal(chatOutputLimitFieldOf(openai({ baseUrl: 'https://eu.api.openai.com/v1' })), 'max_completion_tokens');
    assert.equal(chatOutputLimitFieldOf(openai({ baseUrl: 'https://my-resource.openai.azure.com/openai/v1' })), 'max_completion_tokens');
  });

  it('another OpenAI-compatible server (Ollama, vLLM): max_tokens, which they all know', () => {
    assert.equal(chatOutputLimitFieldOf(openai({ baseUrl: 'http://127.0.0.1:11434/v1' })), 'max_tokens');
  });

  it('the provider\'s outputLimitField wins either way', () => {
    assert.equal(chatOutputLimitFieldOf(openai({ outputLimitField: 'max_tokens' })), 'max_tokens');
    assert.equal(chatOutputLimitFieldOf(openai({ baseUrl: 'http://127.0.0.1:8000/v1', outputLimitField: 'max_completion_tokens' })), 'max_completion_tokens');
  });

  it('providers that translate chat to their own format leave it to their adapter', () => {
    assert.equal(chatOutputLimitFieldOf({ ...openai(), kind: 'anthropic' }), undefined);
  });
});
