import { unsupported, type ParamTable } from '../../adapt/index.js';

/**
 * Converse's `inferenceConfig` (maxTokens, temperature, topP, stopSequences) is all Bedrock takes for
 * every model; model-specific fields (`additionalModelRequestFields`, e.g. top_k) differ per model family,
 * so they are not guessed: what Converse cannot take is dropped and reported (contract §4.3 rule 1).
 * Messages and Responses clients get these ranges through the generic wrappers.
 */
export const bedrockParamsForChatClients: ParamTable = {
  temperature: { min: 0, max: 1 },
  top_p: { min: 0, max: 1 },
  // Converse answers one candidate per request.
  n: { min: 1, max: 1 },
  top_k: unsupported,
  seed: unsupported,
  presence_penalty: unsupported,
  frequency_penalty: unsupported,
  logit_bias: unsupported,
  logprobs: unsupported,
  top_logprobs: unsupported,
  // Converse has no structured-output field common to its models.
  response_format: unsupported,
  parallel_tool_calls: unsupported,
  reasoning_effort: unsupported,
  service_tier: unsupported,
  prediction: unsupported,
  modalities: unsupported,
  audio: unsupported,
  store: unsupported,
  user: unsupported,
};
