import { ServiceError } from '../errors/index.js';

/** Contract §8: the hard cap on any output budget a model request may ask for. */
export const MAX_TOKENS_CAP = 131_072;

const budgetFields = ['max_tokens', 'max_completion_tokens', 'max_output_tokens'] as const;

/**
 * Step 5 of the pipeline: a budget above the hard cap answers 400 `max_tokens_exceeded` (with no
 * denial headers, contract §7.1 rule 2) — above a model's own limit, it is clamped instead (step 6).
 */
export function enforceMaxTokensCap(body: Record<string, unknown>): void {
  for (const field of budgetFields) {
    const value = body[field];
    if (typeof value === 'number' && value > MAX_TOKENS_CAP) {
      const shown = Number.isFinite(value) ? String(value) : 'past the largest number JSON carries';
      throw new ServiceError('max_tokens_exceeded', `${field} is ${shown}, above the maximum of ${MAX_TOKENS_CAP}`, { param: field });
    }
  }
}
