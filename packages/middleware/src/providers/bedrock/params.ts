import { openAiServiceOnly, unsupported, type ParamTable } from '../../adapt/index.js';

/**
 * Chat fields no Converse request carries beyond OpenAI's own service options: sampling extras, log
 * probabilities, structured output (no field common to Bedrock's models), parallel tool calls, the end user.
 */
const notInConverse = ['top_k', 'seed', 'presence_penalty', 'frequency_penalty', 'logit_bias', 'logprobs', 'top_logprobs', 'response_format', 'parallel_tool_calls', 'user'] as const;

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
  ...Object.fromEntries(notInConverse.map((name) => [name, unsupported])),
  ...openAiServiceOnly,
};
