import type { z } from 'zod';
import { IncompleteStream } from './codec.js';

/**
 * What an upstream event must look like for the translators to read it: a zod schema (the one definition,
 * whose inferred type the translators use) and a hand-written guard checking the same fields. The guard runs
 * per event (zod per event halved the decode rate: test/bench/stream-events-bench.ts, README "Performance");
 * zod runs only on a failed guard, to say what was wrong. test/middleware/providers/upstream-events.test.ts
 * holds the two to the same verdict.
 */
export interface EventShape<Event> {
  /** The family, named in the error. */
  name: string;
  schema: z.ZodType<Event>;
  is(value: unknown): value is Event;
}

/**
 * The second stream layer: one framed event's JSON text → a checked event. A malformed event ends the stream
 * abnormally (IncompleteStream), as a provider failure, never as a crash or a guessed value.
 *
 * @example
 * const chunk = decodeEvent(event.data, openaiChatChunk); chunk.choices?.[0]?.delta?.content
 */
export function decodeEvent<Event>(data: string, shape: EventShape<Event>): Event {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new IncompleteStream(`upstream sent a ${shape.name} event that is not JSON: ${data.slice(0, 200)}`);
  }
  if (shape.is(value)) return value;
  throw new IncompleteStream(`upstream sent a malformed ${shape.name} event (${mismatchOf(value, shape)})`);
}

/** What makes `value` not of `shape`, as zod words it (run only once the guard said no): `field.path: message`. */
export function mismatchOf(value: unknown, shape: EventShape<unknown>): string {
  const issue = shape.schema.safeParse(value).error?.issues[0];
  return issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unexpected shape';
}

/** Guard helpers: a JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Absent, null, or a string. */
export function isOptionalString(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'string';
}

/** Absent, null, or an object. */
export function isOptionalObject(value: unknown): boolean {
  return value === undefined || value === null || isObject(value);
}
