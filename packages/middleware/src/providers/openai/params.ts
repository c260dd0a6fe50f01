import { unsupported, type ParamTable } from '../../adapt/index.js';

/**
 * `service_tier` values OpenAI bills at the rates an alias's list price stands for: `auto` and `default` (the
 * project's standard processing), `flex` (half of it). `priority` (about twice the list price) and `scale` (prepaid
 * units) would deliver output that Tollgate bills below what it costs: dropped and reported (contract §4.3 rule 1),
 * unless the alias's `params.service_tier: true` takes them as sent.
 */
const listPricedTier = { expressible: (value: unknown) => value === 'auto' || value === 'default' || value === 'flex' };

/** OpenAI chat parameters and their ranges (platform.openai.com API reference). */
export const openaiChatParams: ParamTable = {
  service_tier: listPricedTier,
  temperature: { min: 0, max: 2 },
  top_p: { min: 0, max: 1 },
  presence_penalty: { min: -2, max: 2 },
  frequency_penalty: { min: -2, max: 2 },
  top_logprobs: { min: 0, max: 20 },
  n: { min: 1, max: 128 },
};

/** OpenAI Responses parameters and their ranges (platform.openai.com API reference). */
export const openaiResponsesParams: ParamTable = {
  service_tier: listPricedTier,
  temperature: { min: 0, max: 2 },
  top_p: { min: 0, max: 1 },
  top_logprobs: { min: 0, max: 20 },
  // A background response is answered at once (`queued`, no usage) and generated afterwards, where no answer or stream
  // of Tollgate's meters it, and Tollgate serves no `GET /v1/responses/{id}` to fetch it: dropped and reported
  // (contract §4.3 rule 1), the request is answered in the foreground and billed.
  background: unsupported,
};
