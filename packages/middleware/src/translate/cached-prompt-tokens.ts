import { countOrNaN } from './usage-report.js';

/**
 * Where each provider reports prompt tokens served from (or written to) its prompt cache, read in one
 * small function per provider so the usage validation around it composes (README "Cached prompt tokens"):
 *
 * - OpenAI: `prompt_tokens_details.cached_tokens` (chat) / `input_tokens_details.cached_tokens`
 *   (Responses), part of `prompt_tokens` / `input_tokens`; no cache-write count.
 * - Gemini: `usageMetadata.cachedContentTokenCount`, part of `promptTokenCount`; no cache-write count.
 * - Anthropic: `cache_read_input_tokens` and `cache_creation_input_tokens`, both beside `input_tokens`
 *   (which then counts only the uncached rest).
 *
 * Each returns a count, 0 when absent, NaN when present but not a count (countOrNaN): the codec boundary's
 * checkedUsage then rejects the whole report (translate/usage-report.ts, issue 15).
 */
export function openaiCachedTokens(usage: { prompt_tokens_details?: { cached_tokens?: number | null } | null; input_tokens_details?: { cached_tokens?: number | null } | null }): number {
  return countOf(usage.prompt_tokens_details?.cached_tokens ?? usage.input_tokens_details?.cached_tokens);
}

export function geminiCachedTokens(usage: { cachedContentTokenCount?: unknown }): number {
  return countOf(usage.cachedContentTokenCount);
}

export function anthropicCacheReadTokens(usage: { cache_read_input_tokens?: number | null }): number {
  return countOf(usage.cache_read_input_tokens);
}

export function anthropicCacheWriteTokens(usage: { cache_creation_input_tokens?: number | null }): number {
  return countOf(usage.cache_creation_input_tokens);
}

function countOf(value: unknown): number {
  return value === undefined || value === null ? 0 : countOrNaN(value);
}
