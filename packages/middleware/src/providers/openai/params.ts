import { unsupported, type ParamTable } from '../../adapt/index.js';
import { chatCanTakeOutputConfig, chatCanTakeOutputFormat } from '../../translate/index.js';

/** OpenAI chat parameters and their ranges (platform.openai.com API reference). */
export const openaiChatParams: ParamTable = {
  temperature: { min: 0, max: 2 },
  top_p: { min: 0, max: 1 },
  presence_penalty: { min: -2, max: 2 },
  frequency_penalty: { min: -2, max: 2 },
  top_logprobs: { min: 0, max: 20 },
  n: { min: 1, max: 128 },
};

/** A messages client on an OpenAI-kind route: Anthropic's parameters that chat cannot express. */
export const openaiParamsForMessagesClients: ParamTable = {
  temperature: { min: 0, max: 2 },
  top_p: { min: 0, max: 1 },
  top_k: unsupported,
  thinking: unsupported,
  service_tier: unsupported,
  // Anthropic's structured output, carried as chat's response_format (messages-to-chat-request.ts).
  output_config: { expressible: chatCanTakeOutputConfig },
  output_format: { expressible: chatCanTakeOutputFormat },
};

/** OpenAI Responses parameters and their ranges (platform.openai.com API reference). */
export const openaiResponsesParams: ParamTable = {
  temperature: { min: 0, max: 2 },
  top_p: { min: 0, max: 1 },
  top_logprobs: { min: 0, max: 20 },
};
