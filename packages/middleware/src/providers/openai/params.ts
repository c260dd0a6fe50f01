import { unsupported, type ParamTable } from '../../adapt/index.js';

/** OpenAI chat parameters and their ranges (platform.openai.com API reference). */
export const openaiChatParams: ParamTable = {
  temperature: { min: 0, max: 2 },
  top_p: { min: 0, max: 1 },
  presence_penalty: { min: -2, max: 2 },
  frequency_penalty: { min: -2, max: 2 },
  top_logprobs: { min: 0, max: 20 },
  n: { min: 1, max: 128 },
};

/** OpenAI Responses parameters and their ranges (platform.openai.com API reference). */
export const openaiResponsesParams: ParamTable = {
  temperature: { min: 0, max: 2 },
  top_p: { min: 0, max: 1 },
  top_logprobs: { min: 0, max: 20 },
  // A background response is answered at once (`queued`, no usage) and generated afterwards, where no answer or stream
  // of Tollgate's meters it, and Tollgate serves no `GET /v1/responses/{id}` to fetch it: dropped and reported
  // (contract §4.3 rule 1), the request is answered in the foreground and billed.
  background: unsupported,
};
