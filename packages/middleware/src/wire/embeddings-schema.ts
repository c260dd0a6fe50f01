import { z } from 'zod';

const tokens = z.array(z.number().int().nonnegative());

/**
 * Wire schema of `POST /v1/embeddings` (OpenAI): text or token-id input, one or many. Embeddings are
 * not streamed; other fields (`user`) pass through to OpenAI-kind routes.
 */
export const embeddingsBody = z.looseObject({
  model: z.string(),
  input: z.union([z.string(), z.array(z.string()).min(1), tokens.min(1), z.array(tokens).min(1)]),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().positive().optional(),
});
