import { z } from 'zod';
import { outputBudget } from './output-budget.js';

const role = z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
const contentPart = z.looseObject({ type: z.string() });

const chatMessage = z.looseObject({
  role,
  content: z.union([z.string(), z.array(contentPart), z.null()]).optional(),
  name: z.string().optional(),
  tool_call_id: z.string().optional(),
  tool_calls: z
    .array(z.looseObject({ id: z.string(), type: z.literal('function'), function: z.looseObject({ name: z.string(), arguments: z.string() }) }))
    .optional(),
});

/**
 * Wire schema of `POST /v1/chat/completions` at the boundary: what Tollgate relies on is checked,
 * everything else passes through to OpenAI-kind routes untouched (`looseObject`).
 */
export const chatCompletionsBody = z.looseObject({
  model: z.string(),
  messages: z.array(chatMessage).min(1),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  max_tokens: outputBudget.nullable().optional(),
  max_completion_tokens: outputBudget.nullable().optional(),
  temperature: z.number().nullable().optional(),
  top_p: z.number().nullable().optional(),
  n: z.number().int().positive().nullable().optional(),
  presence_penalty: z.number().nullable().optional(),
  frequency_penalty: z.number().nullable().optional(),
  stop: z.union([z.string(), z.array(z.string())]).nullable().optional(),
  tools: z.array(z.looseObject({ type: z.string(), function: z.looseObject({ name: z.string() }).optional() })).optional(),
});
