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
  const result = schema.safeParse(input, FIRST_ISSUE);
  if (result.success) return result.data;
  // Every issue, as zod reports them, for a body small enough that reporting all of them costs little.
  const issues = valuesAtMost(input, FULL_REPORT_VALUES) ? schema.safeParse(input).error!.issues : result.error.issues;
  const detail: DetailItem[] = issues.map((issue) => {
    const value = valueAt(input, issue.path as (string | number)[]);
    return { type: detailType(issue, value), loc: ['body', ...(issue.path as (string | number)[])], msg: issue.message.slice(0, MAX_ECHO_CHARS), input: echoOf(value) };
  });
  throw new ServiceError('validation_failed', detail.map((item) => `${item.loc.join('.')}: ${item.msg}`).join('; '), { detail });
}

/**
 * zod's own option (a context flag `validate` sets) that stops each object and array at its first failing member. zod
 * reports every issue otherwise, an object per failing element: the 9,000,000 numbers of an 18 MB `messages` took the
 * heap past its limit and the process down, and 1,000,000 (2 MB) were 4 s and a 122 MB answer. A body zod accepts
 * parses the same either way (nothing fails, so nothing stops early).
 */
const FIRST_ISSUE = { abortEarly: true } as z.core.ParseContext<z.core.$ZodIssue>;

/** A refused body of at most this many values gets zod's every issue (at most about as many); a larger one its first. */
const FULL_REPORT_VALUES = 10_000;

/** Whether `input` holds at most `max` values (objects, arrays and scalars): an iterative walk that stops past `max`. */
function valuesAtMost(input: unknown, max: number): boolean {
  const pending: unknown[] = [input];
  let seen = 0;
  while (pending.length > 0) {
    const node = pending.pop();
    if (++seen > max) return false;
    if (node !== null && typeof node === 'object') for (const child of Object.values(node)) pending.push(child);
  }
  return true;
}

/** How much of a rejected value a 422 shows: enough to find it, never the whole of an unbounded input. */
const MAX_ECHO_CHARS = 200;

/**
 * The rejected value as the detail's `input`: scalars and small values as they are; a long string, or a
 * value whose JSON is long (or cannot be made: nested too deep), as the start of its JSON text and `…`
 * (issue 15 item 7: the input was once echoed whole, and rendering a deep one overflowed the stack).
 */
function echoOf(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.length > MAX_ECHO_CHARS ? `${value.slice(0, MAX_ECHO_CHARS)}…` : value;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    return '[value too deeply nested to show]';
  }
  return text.length > MAX_ECHO_CHARS ? `${text.slice(0, MAX_ECHO_CHARS)}…` : value;
}

function detailType(issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code === 'invalid_type') return value === undefined ? 'missing' : `${issue.expected}_type`;
  if (issue.code === 'too_small') return 'too_short';
  // A whole number of any size (wire/output-budget.ts): a fraction is the `int()` type error it always was.
  if (issue.code === 'not_multiple_of' && issue.divisor === 1) return 'int_type';
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
