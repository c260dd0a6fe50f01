import type { z } from 'zod';
import { ServiceError, type DetailItem } from '../errors/index.js';

/**
 * Validates a request body against its wire schema; failures answer 422 with a detail list
 * (contract §2.3 shape 3) whose `loc` starts at `body`, as FastAPI-style clients expect.
 *
 * @example
 * const body = parseBody(sqlQueryBody, raw);
 */
export function parseBody<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const detail: DetailItem[] = result.error.issues.map((issue) => {
    const value = valueAt(input, issue.path as (string | number)[]);
    return { type: detailType(issue, value), loc: ['body', ...(issue.path as (string | number)[])], msg: issue.message, input: value ?? null };
  });
  throw new ServiceError('validation_failed', detail.map((item) => `${item.loc.join('.')}: ${item.msg}`).join('; '), { detail });
}

function detailType(issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code === 'invalid_type') return value === undefined ? 'missing' : `${issue.expected}_type`;
  if (issue.code === 'too_small') return 'too_short';
  if (issue.code === 'invalid_value') return 'enum';
  return issue.code;
}

function valueAt(input: unknown, path: (string | number)[]): unknown {
  let node: unknown = input;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}
