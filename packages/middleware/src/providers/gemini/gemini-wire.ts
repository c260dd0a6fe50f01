import type { GeminiFunctionCall } from './gemini-events.js';

/**
 * The slices of Google's Gemini API (v1beta `generateContent`, `streamGenerateContent?alt=sse`,
 * `batchEmbedContents`) that Tollgate writes and reads. Field names are Gemini's camelCase.
 */
export type GeminiPart =
  | { text: string; thought?: boolean; thoughtSignature?: string }
  | { inlineData: { mimeType: string; data: string } }
  | { fileData: { mimeType?: string; fileUri: string } }
  | { functionCall: GeminiFunctionCall; thoughtSignature?: string }
  | { functionResponse: { id?: string; name: string; response: Record<string, unknown> } };

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: { functionDeclarations: { name: string; description?: string; parameters?: unknown }[] }[];
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] } };
  generationConfig: Record<string, unknown>;
}

// What Tollgate reads back (answers and stream events): types inferred from their schema.
export type { GeminiCandidate, GeminiFunctionCall, GeminiResponse, GeminiUsage } from './gemini-events.js';
