import { z } from 'zod';
import { outputBudget } from './output-budget.js';

const contentPart = z.looseObject({ type: z.string() });

const inputItem = z.union([
  z.looseObject({ type: z.literal('message').optional(), role: z.enum(['user', 'assistant', 'system', 'developer']), content: z.union([z.string(), z.array(contentPart)]) }),
  z.looseObject({ type: z.literal('function_call'), call_id: z.string(), name: z.string(), arguments: z.string() }),
  z.looseObject({ type: z.literal('function_call_output'), call_id: z.string(), output: z.union([z.string(), z.array(contentPart)]) }),
  // Other item kinds (reasoning, web_search_call …) pass through to OpenAI; translation skips them.
  z.looseObject({ type: z.string().refine((t) => !['message', 'function_call', 'function_call_output'].includes(t)) }),
]);

/**
 * Wire schema of `POST /v1/responses` (OpenAI Responses) at the boundary: `input` as text or items,
 * `instructions`, function tools, `max_output_tokens`; other fields pass through to OpenAI untouched.
 */
export const responsesBody = z.looseObject({
  model: z.string(),
  input: z.union([z.string(), z.array(inputItem).min(1)]),
  instructions: z.string().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  max_output_tokens: outputBudget.nullable().optional(),
  temperature: z.number().nullable().optional(),
  top_p: z.number().nullable().optional(),
  tools: z.array(z.looseObject({ type: z.string(), name: z.string().optional() })).optional(),
  tool_choice: z.union([z.enum(['auto', 'none', 'required']), z.looseObject({ type: z.string(), name: z.string().optional() })]).optional(),
});
