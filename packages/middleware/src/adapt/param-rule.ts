import { z } from 'zod';

/** Parameter capability of a model: `false` — it cannot take it (dropped); a range — clamped into it. */
export const paramRule = z.union([
  z.literal(false),
  z.object({ min: z.number().optional(), max: z.number().optional() }).strict(),
]);

export type ParamRule = z.output<typeof paramRule>;
