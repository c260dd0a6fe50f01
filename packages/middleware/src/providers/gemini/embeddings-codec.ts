import { ServiceError } from '../../errors/index.js';
import { embeddingInputTokens } from '../../tokenize/index.js';
import type { Codec } from '../codec.js';
import { notStreamed } from '../not-streamed.js';

/**
 * An embeddings client on a Gemini route: `batchEmbedContents`, one request per input, answered in
 * OpenAI's list shape. Gemini reports no usage, so input tokens are the tokenizer's count of the prompt.
 *
 * @example
 * geminiEmbeddingsCodec.request({ input: ['a', 'b'] }, target, {}) // { requests: [{ model, content: { parts: [{ text: 'a' }] } }, …] }
 */
export const geminiEmbeddingsCodec: Codec = {
  params: {},
  outputLimitFields: [],
  upstreamPath: (target) => `/models/${encodeURIComponent(bareModel(target.model))}:batchEmbedContents`,
  request(body, target) {
    const model = `models/${bareModel(target.model)}`;
    const dimensions = typeof body.dimensions === 'number' ? { outputDimensionality: body.dimensions } : {};
    return { requests: textInputs(body.input).map((text) => ({ model, content: { parts: [{ text }] }, ...dimensions })) };
  },
  response(upstream, target, clientBody = {}, prompt) {
    const texts = textInputs(clientBody.input);
    const embeddings = (upstream as { embeddings?: unknown } | null)?.embeddings;
    // One embedding of numbers per input, or it is not Gemini's answer (usageCheckedCodec: retried, then 502).
    if (!Array.isArray(embeddings) || embeddings.length !== texts.length) throw new Error(`expected ${texts.length} embedding(s) from batchEmbedContents`);
    for (const e of embeddings as { values?: unknown }[]) {
      if (!Array.isArray(e?.values) || !e.values.every((v) => typeof v === 'number' && Number.isFinite(v))) throw new Error('a Gemini embedding without numeric values');
    }
    const base64 = clientBody.encoding_format === 'base64';
    // The request's own count (counted in turns for a large body): counting 20 MiB of input again here, at once,
    // held the process's event loop for 25 s.
    const inputTokens = prompt ? prompt.promptTokens() : embeddingInputTokens(texts);
    return {
      body: {
        object: 'list',
        data: (embeddings as { values: number[] }[]).map((e, index) => ({ object: 'embedding', index, embedding: base64 ? toBase64(e.values) : e.values })),
        model: target.alias,
        usage: { prompt_tokens: inputTokens, total_tokens: inputTokens },
      },
      // Counted, not reported: the meter takes it as the provider's figure for this request.
      usage: { inputTokens, outputTokens: 0, reported: true },
    };
  },
  stream: () => notStreamed,
};


function bareModel(model: string): string {
  return model.replace(/^models\//, '');
}

/** Gemini embeds text only; token-id inputs (OpenAI's number arrays) have no Gemini equivalent. */
function textInputs(input: unknown): string[] {
  const inputs = Array.isArray(input) ? input : [input];
  if (!inputs.every((item) => typeof item === 'string')) {
    throw new ServiceError('invalid_request', 'This model embeds text only; send input as a string or an array of strings', { param: 'input' });
  }
  return inputs as string[];
}

/** OpenAI's `encoding_format: "base64"`: little-endian float32 values, base64-encoded. */
export function toBase64(values: number[]): string {
  return Buffer.from(new Float32Array(values).buffer).toString('base64');
}
