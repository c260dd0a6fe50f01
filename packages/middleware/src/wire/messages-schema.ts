import { z } from 'zod';
import { outputBudget } from './output-budget.js';

const block = z.looseObject({ type: z.string() });

/**
 * Wire schema of `POST /v1/messages` (Anthropic). `max_tokens` is required, as Anthropic requires it;
 * fields Tollgate does not read pass through to Anthropic routes.
 */
export const messagesBody = z.looseObject({
  model: z.string(),
  max_tokens: outputBudget,
  messages: z.array(z.looseObject({ role: z.enum(['user', 'assistant']), content: z.union([z.string(), z.array(block)]) })).min(1),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.literal('text'), text: z.string() }))]).optional(),
  stream: z.boolean().optional(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  top_k: z.number().int().optional(),
  stop_sequences: z.array(z.string()).optional(),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
});
