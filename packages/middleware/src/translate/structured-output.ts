import type { Json } from './wire-types.js';

/**
 * Structured output in the pivot's terms (OpenAI chat `response_format`): a JSON schema the answer must
 * follow, or any JSON object. Every client family's request for it becomes this, and every route
 * enforces it its own way (contract §4.3 rule 1: only what truly cannot be expressed is dropped).
 */
export type StructuredFormat =
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict: boolean | undefined }
  | { type: 'json_object' };

/**
 * The structured format a chat `response_format` asks for; undefined for plain text (or none) and for
 * a malformed one (no schema object), which no route can enforce.
 *
 * @example
 * structuredFormatOf({ type: 'json_schema', json_schema: { name: 'math', schema: { type: 'object' } } })
 * // → { type: 'json_schema', name: 'math', schema: { type: 'object' }, strict: undefined }
 */
export function structuredFormatOf(responseFormat: unknown): StructuredFormat | undefined {
  const format = responseFormat as { type?: unknown; json_schema?: { name?: unknown; schema?: unknown; strict?: unknown } } | null | undefined;
  if (format?.type === 'json_object') return { type: 'json_object' };
  if (format?.type !== 'json_schema' || !isObject(format.json_schema?.schema)) return undefined;
  const { name, schema, strict } = format.json_schema;
  return { type: 'json_schema', name: typeof name === 'string' ? name : 'response', schema: schema as Record<string, unknown>, strict: typeof strict === 'boolean' ? strict : undefined };
}

/** A schema whose answer is a JSON object: what a tool's input (Anthropic) must be. */
export function hasObjectRoot(schema: Record<string, unknown>): boolean {
  return schema.type === 'object';
}

/**
 * The Responses API's `text.format` as a chat `response_format` (the pivot); undefined for plain text.
 *
 * @example
 * responseFormatFromResponsesText({ format: { type: 'json_schema', name: 'math', schema, strict: true } })
 * // → { type: 'json_schema', json_schema: { name: 'math', schema, strict: true } }
 */
export function responseFormatFromResponsesText(text: unknown): Json | undefined {
  const format = (text as { format?: { type?: unknown; name?: unknown; schema?: unknown; strict?: unknown } } | null | undefined)?.format;
  if (format?.type === 'json_object') return { type: 'json_object' };
  if (format?.type !== 'json_schema') return undefined;
  const jsonSchema: Json = { name: typeof format.name === 'string' ? format.name : 'response', schema: format.schema };
  if (typeof format.strict === 'boolean') jsonSchema.strict = format.strict;
  return { type: 'json_schema', json_schema: jsonSchema };
}

/**
 * Anthropic's structured output (`output_config.format`, or the older `output_format`) as a chat
 * `response_format`; undefined when the request asks for none. `strict` is set only for a schema that
 * meets OpenAI's strict rules (every object closed, every property required), which OpenAI would
 * otherwise refuse with a 400; any other schema is still sent, as guidance.
 *
 * @example
 * responseFormatFromMessages({ output_config: { format: { type: 'json_schema', schema } } })
 * // → { type: 'json_schema', json_schema: { name: 'output', schema, strict: true } }
 */
export function responseFormatFromMessages(request: Json): Json | undefined {
  const format = messagesOutputFormat(request);
  if (format?.type !== 'json_schema' || !isObject(format.schema)) return undefined;
  const schema = format.schema as Record<string, unknown>;
  const jsonSchema: Json = { name: 'output', schema };
  if (meetsStrictRules(schema)) jsonSchema.strict = true;
  return { type: 'json_schema', json_schema: jsonSchema };
}

/**
 * Whether a chat route (OpenAI's `response_format`, Gemini's `responseJsonSchema`) can take Anthropic's
 * `output_format`: a JSON schema of an object.
 */
export function chatCanTakeOutputFormat(format: unknown): boolean {
  const { type, schema } = (format ?? {}) as { type?: unknown; schema?: unknown };
  return type === 'json_schema' && isObject(schema) && schema.type === 'object';
}

/** The same for `output_config`: its `format`, and no `effort`, which chat has no field for. */
export function chatCanTakeOutputConfig(config: unknown): boolean {
  const { effort, format } = (config ?? {}) as { effort?: unknown; format?: unknown };
  return (effort === undefined || effort === null) && (format === undefined || format === null || chatCanTakeOutputFormat(format));
}

/** `output_config.format` wins over the deprecated `output_format` (Anthropic API reference). */
export function messagesOutputFormat(request: Json): { type?: unknown; schema?: unknown } | undefined {
  const config = request.output_config as { format?: { type?: unknown; schema?: unknown } | null } | null | undefined;
  return config?.format ?? (request.output_format as { type?: unknown; schema?: unknown } | null | undefined) ?? undefined;
}

/** OpenAI's strict structured outputs: every object has `additionalProperties: false` and requires all its properties. */
export function meetsStrictRules(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(meetsStrictRules);
  if (!isObject(schema)) return true;
  const node = schema as Record<string, unknown>;
  if (isObject(node.properties) || node.type === 'object') {
    const keys = Object.keys((node.properties as Record<string, unknown> | undefined) ?? {});
    // A set, not `required.includes` per key: that was quadratic in a client's schema (40,000 properties, 0.8 MB: 2 s).
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    if (node.additionalProperties !== false || !keys.every((key) => required.has(key))) return false;
  }
  for (const key of ['properties', '$defs', 'definitions']) {
    if (isObject(node[key]) && !Object.values(node[key] as Record<string, unknown>).every(meetsStrictRules)) return false;
  }
  for (const key of ['items', 'anyOf', 'allOf', 'oneOf']) if (node[key] !== undefined && !meetsStrictRules(node[key])) return false;
  return true;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
