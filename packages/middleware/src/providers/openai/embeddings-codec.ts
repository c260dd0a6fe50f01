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
  response(upstream, target, clientBody = {}) {
    checkEmbeddingList(upstream, embeddingInputCount(clientBody.input));
    const list = { ...(upstream as { usage?: { prompt_tokens?: number } }), model: target.alias };
    const reported = list.usage?.prompt_tokens !== undefined;
    return { body: list, usage: { inputTokens: countOrNaN(list.usage?.prompt_tokens ?? 0), outputTokens: 0, reported } };
  },
  stream: () => notStreamed,
};

/** How many embeddings a request asks for: one per string or token-id array, one for a lone string or token array. */
export function embeddingInputCount(input: unknown): number {
  if (!Array.isArray(input)) return 1;
  return input.length > 0 && typeof input[0] === 'number' ? 1 : input.length;
}

/**
 * A 2xx that is not an embeddings list of one embedding per input (a proxy's `{"error": …}`, `null`, a short
 * list) is not the provider's answer: thrown, so usageCheckedCodec makes it an unreadable answer (retried, 502).
 */
function checkEmbeddingList(upstream: unknown, inputs: number): void {
  const data = (upstream as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== inputs) throw new Error(`expected an embeddings list of ${inputs} item(s)`);
  for (const item of data) {
    const embedding = (item as { embedding?: unknown } | null)?.embedding;
    if (typeof embedding !== 'string' && !Array.isArray(embedding)) throw new Error('an embeddings list item without an embedding');
  }
}
