/**
 * What a provider does with one request parameter: `unsupported` — it cannot take it (dropped);
 * a range — values outside are clamped; `expressible` — the route translates it when this says it can
 * (structured output: a schema the target can enforce), else it is dropped. Parameters absent from a
 * table pass through unchanged.
 */
export type ParamCapability = { unsupported: true } | { min?: number; max?: number } | { expressible: (value: unknown) => boolean };

/** A provider's (or model's) parameters by the name the client sent them under. */
export type ParamTable = Readonly<Record<string, ParamCapability>>;

export const unsupported = { unsupported: true } as const;

/** OpenAI chat parameters for OpenAI's own service and models only: no other provider has a field for them. */
export const openAiServiceOnly: ParamTable = {
  service_tier: unsupported,
  prediction: unsupported,
  modalities: unsupported,
  audio: unsupported,
  reasoning_effort: unsupported,
  store: unsupported,
  // Search models' web search and GPT-5's output verbosity.
  web_search_options: unsupported,
  verbosity: unsupported,
};

/**
 * Whether a route whose table has `capability` for a parameter keeps `value` of it: what translating
 * wrappers (Responses via chat) ask of the chat table they wrap.
 *
 * @example
 * keeps(anthropicParamsForChatClients.response_format, { type: 'json_object' }) // true
 */
export function keeps(capability: ParamCapability | undefined, value: unknown): boolean {
  if (!capability) return true;
  if ('unsupported' in capability) return false;
  if ('expressible' in capability) return capability.expressible(value);
  return true;
}
