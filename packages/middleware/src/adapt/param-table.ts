/**
 * What a provider does with one request parameter: `unsupported` — it cannot take it (dropped);
 * a range — values outside are clamped. Parameters absent from a table pass through unchanged.
 */
export type ParamCapability = { unsupported: true } | { min?: number; max?: number };

/** A provider's (or model's) parameters by the name the client sent them under. */
export type ParamTable = Readonly<Record<string, ParamCapability>>;

export const unsupported = { unsupported: true } as const;
