import { z } from 'zod';

const block = z.looseObject({ type: z.string() });

/**
 * Wire schema of `POST /v1/messages/count_tokens` (Anthropic): a messages request without
 * `max_tokens`; tools, system and thinking count too.
 */
export const countTokensBody = z.looseObject({
  model: z.string(),
  messages: z.array(z.looseObject({ role: z.enum(['user', 'assistant']), content: z.union([z.string(), z.array(block)]) })).min(1),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.literal('text'), text: z.string() }))]).optional(),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
});
