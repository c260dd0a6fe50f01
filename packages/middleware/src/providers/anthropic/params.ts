import { openAiServiceOnly, unsupported, type ParamTable } from '../../adapt/index.js';
import { canForceAnswerTool } from './answer-tool.js';

/** Anthropic messages parameters and their ranges (docs.anthropic.com API reference). */
export const anthropicMessagesParams: ParamTable = {
  temperature: { min: 0, max: 1 },
  top_p: { min: 0, max: 1 },
  top_k: { min: 0 },
};

/** A chat client on an Anthropic route: OpenAI parameters that messages cannot take. */
export const anthropicParamsForChatClients: ParamTable = {
  temperature: { min: 0, max: 1 },
  top_p: { min: 0, max: 1 },
  // Anthropic answers one candidate per request.
  n: { min: 1, max: 1 },
  logit_bias: unsupported,
  logprobs: unsupported,
  top_logprobs: unsupported,
  presence_penalty: unsupported,
  frequency_penalty: unsupported,
  seed: unsupported,
  // Enforced through a forced tool whose input is the answer (answer-tool.ts); a schema of a non-object cannot be a tool's input.
  response_format: { expressible: canForceAnswerTool },
  ...openAiServiceOnly,
};
