import { z } from 'zod';

/**
 * The slices of Bedrock Runtime's Converse and ConverseStream APIs that Tollgate writes and reads
 * (AWS API reference, bedrock-runtime 2023-09-30; shapes as in aws-sdk-js-v3's client-bedrock-runtime).
 * Requests are written by Tollgate, so they are plain types; an answer is checked by the schema below at
 * the boundary and its type inferred (stream events: converse-events.ts). Token counts stay `unknown` here: the
 * usage check (translate/usage-report.ts) judges them, so a bad count is logged and tokenized, not a 500.
 */
export type ConverseContentBlock =
  | { text: string }
  | { image: { format: 'png' | 'jpeg' | 'gif' | 'webp'; source: { bytes: string } } }
  | { toolUse: { toolUseId: string; name: string; input: unknown } }
  | { toolResult: { toolUseId: string; content: ({ text: string } | { json: unknown })[]; status?: 'success' | 'error' } };

export interface ConverseMessage {
  role: 'user' | 'assistant';
  content: ConverseContentBlock[];
}

export interface ConverseToolSpec {
  toolSpec: { name: string; description?: string; inputSchema: { json: unknown } };
}

export type ConverseToolChoice = { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

export interface ConverseRequest {
  messages: ConverseMessage[];
  system?: { text: string }[];
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: { tools: ConverseToolSpec[]; toolChoice?: ConverseToolChoice };
}

/** Exported for the stream events' schemas (converse-events.ts). */
export const converseUsageSchema = z.looseObject({
  inputTokens: z.unknown(),
  outputTokens: z.unknown(),
  totalTokens: z.unknown().optional(),
  cacheReadInputTokens: z.unknown().optional(),
  cacheWriteInputTokens: z.unknown().optional(),
});

export type ConverseUsage = z.infer<typeof converseUsageSchema>;

const answerBlock = z.object({
  text: z.string().optional(),
  toolUse: z.object({ toolUseId: z.string(), name: z.string(), input: z.unknown() }).optional(),
});

/** A Converse answer (`POST /model/{modelId}/converse`). */
export const converseResponseSchema = z.object({
  output: z.object({ message: z.object({ role: z.literal('assistant'), content: z.array(answerBlock) }) }),
  stopReason: z.string(),
  usage: converseUsageSchema.optional(),
});

export type ConverseResponse = z.infer<typeof converseResponseSchema>;
