import { z } from 'zod';

/**
 * An output budget (`max_tokens`, `max_completion_tokens`, `max_output_tokens`): a positive whole number of any
 * size. One past contract §8's cap of 131,072 is the cap's to refuse (400 `max_tokens_exceeded`, checked after the
 * body), not the schema's: zod's `int()` stops at 2^53 − 1, so `1e20` was a 422. Every number from 2^53 up is
 * whole, and a fraction keeps the message and detail type `int()` gave it (validate/parse-body.ts).
 */
export const outputBudget = z.union([
  z.number().positive().multipleOf(1, { error: 'Invalid input: expected int, received number' }),
  // A number past JSON's doubles (`1e309`) parses as Infinity, which `z.number()` refuses with a 422: it is as far
  // past the cap as any (a union over one number type keeps a fraction's issue as it was).
  z.literal(Infinity),
]);
