import type { ConfigInput } from '../config/index.js';

/**
 * Providers the default catalog routes to. Keys come from the environment; a provider whose variable
 * is unset is disabled and its models answer `model_not_configured` (DESIGN "Configuration").
 */
export const defaultProviders = {
  openai: { kind: 'openai', apiKey: '${OPENAI_API_KEY}' },
  anthropic: { kind: 'anthropic', apiKey: '${ANTHROPIC_API_KEY}' },
  gemini: { kind: 'gemini', apiKey: '${GEMINI_API_KEY}' },
} as const satisfies ConfigInput['providers'];

/**
 * Useful aliases with public list prices (USD per million tokens) and output limits as published by
 * each vendor in 2025. A config's `models` overrides an alias wholesale or adds new ones.
 * Cache rates: OpenAI and Gemini bill cache reads at their cached-input price and have no cache-write
 * charge (cacheWrite = input; Gemini's hourly cache storage is not per request and not billed here);
 * Anthropic bills reads at 0.1× input and 5-minute cache writes at 1.25× input.
 */
export const defaultModels = {
  'gpt-4o': { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10, cachedInput: 1.25, cacheWrite: 2.5 }, maxOutputTokens: 16_384 },
  'gpt-4o-mini': { routes: [{ provider: 'openai', model: 'gpt-4o-mini' }], price: { input: 0.15, output: 0.6, cachedInput: 0.075, cacheWrite: 0.15 }, maxOutputTokens: 16_384 },
  'gpt-4.1': { routes: [{ provider: 'openai', model: 'gpt-4.1' }], price: { input: 2, output: 8, cachedInput: 0.5, cacheWrite: 2 }, maxOutputTokens: 32_768 },
  'gpt-4.1-mini': { routes: [{ provider: 'openai', model: 'gpt-4.1-mini' }], price: { input: 0.4, output: 1.6, cachedInput: 0.1, cacheWrite: 0.4 }, maxOutputTokens: 32_768 },
  'o4-mini': {
    routes: [{ provider: 'openai', model: 'o4-mini' }],
    price: { input: 1.1, output: 4.4, cachedInput: 0.275, cacheWrite: 1.1 },
    maxOutputTokens: 100_000,
    // Reasoning models reject sampling parameters.
    params: { temperature: false, top_p: false, presence_penalty: false, frequency_penalty: false, logit_bias: false, logprobs: false },
  },
  'claude-sonnet': {
    routes: [{ provider: 'anthropic', model: 'claude-sonnet-4-5' }, { provider: 'openai', model: 'gpt-4o' }],
    price: { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
    maxOutputTokens: 64_000,
  },
  'claude-haiku': { routes: [{ provider: 'anthropic', model: 'claude-haiku-4-5' }], price: { input: 1, output: 5, cachedInput: 0.1, cacheWrite: 1.25 }, maxOutputTokens: 64_000 },
  'claude-opus': { routes: [{ provider: 'anthropic', model: 'claude-opus-4-5' }], price: { input: 5, output: 25, cachedInput: 0.5, cacheWrite: 6.25 }, maxOutputTokens: 64_000 },
  gemini: { routes: [{ provider: 'gemini', model: 'gemini-2.5-pro' }], price: { input: 1.25, output: 10, cachedInput: 0.125, cacheWrite: 1.25 }, maxOutputTokens: 65_536 },
  'gemini-flash': { routes: [{ provider: 'gemini', model: 'gemini-2.5-flash' }], price: { input: 0.3, output: 2.5, cachedInput: 0.03, cacheWrite: 0.3 }, maxOutputTokens: 65_536 },
  'text-embedding-3-small': { kind: 'embedding', routes: [{ provider: 'openai', model: 'text-embedding-3-small' }], price: { input: 0.02, output: 0 } },
  'text-embedding-3-large': { kind: 'embedding', routes: [{ provider: 'openai', model: 'text-embedding-3-large' }], price: { input: 0.13, output: 0 } },
  'gemini-embedding': { kind: 'embedding', routes: [{ provider: 'gemini', model: 'gemini-embedding-001' }], price: { input: 0.15, output: 0 } },
} as const satisfies ConfigInput['models'];
