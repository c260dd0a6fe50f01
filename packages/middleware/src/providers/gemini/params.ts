import { openAiServiceOnly, unsupported, type ParamTable } from '../../adapt/index.js';

/**
 * A chat client on a Gemini route (ai.google.dev `GenerationConfig`): what maps onto Gemini and its
 * ranges; everything Gemini has no field for is dropped and reported (contract §4.3 rule 1).
 */
export const geminiParamsForChatClients: ParamTable = {
  temperature: { min: 0, max: 2 },
  top_p: { min: 0, max: 1 },
  // topK, which Messages clients send as `top_k` too (messagesViaChat takes this range).
  top_k: { min: 1 },
  // candidateCount: Gemini answers at most 8 candidates.
  n: { min: 1, max: 8 },
  presence_penalty: { min: -2, max: 2 },
  frequency_penalty: { min: -2, max: 2 },
  logit_bias: unsupported,
  logprobs: unsupported,
  top_logprobs: unsupported,
  ...openAiServiceOnly,
  parallel_tool_calls: unsupported,
  user: unsupported,
};
