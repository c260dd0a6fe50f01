import { z } from 'zod';

/**
 * Parameter capability of a model: `false` — it cannot take it (dropped); `true` — it takes it as sent, whatever its
 * provider's table says (an operator's choice, e.g. `service_tier: true` for OpenAI's priority tier, which bills above
 * the alias's list price); a range — clamped into it.
 */
export const paramRule = z.union([
  z.boolean(),
  z.object({ min: z.number().optional(), max: z.number().optional() }).strict(),
]);

export type ParamRule = z.output<typeof paramRule>;
