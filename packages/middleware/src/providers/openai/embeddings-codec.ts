import { countOrNaN } from '../../translate/index.js';
import type { Codec } from '../codec.js';
import { notStreamed } from '../not-streamed.js';

/**
 * An embeddings client on an OpenAI(-compatible) route: a native relay with the upstream model in the
 * request and the alias in the answer; upstream errors keep their original body (contract §2.3).
 */
export const openaiEmbeddingsCodec: Codec = {
  params: {},
  outputLimitFields: [],
  upstreamPath: () => '/embeddings',
  request: (body, target) => ({ ...body, model: target.model }),
  response(upstream, target) {
    const list = { ...(upstream as { usage?: { prompt_tokens?: number } }), model: target.alias };
    const reported = list.usage?.prompt_tokens !== undefined;
    return { body: list, usage: { inputTokens: countOrNaN(list.usage?.prompt_tokens ?? 0), outputTokens: 0, reported } };
  },
  stream: () => notStreamed,
};
