import { z } from 'zod';
import { isObject, isOptionalObject, type EventShape } from '../decode-event.js';
import { converseUsageSchema } from './converse-wire.js';

/*
 * ConverseStream's events by their `:event-type` header: for each, a zod schema (its inferred type is what
 * the translator reads) and a guard checking the same fields, run per event (decode-event.ts: zod per event
 * is too slow for the stream path; it only explains a rejection). Only the fields the translator reads are
 * checked; the rest (AWS's `p` padding, `metrics`, `additionalModelResponseFields`, reasoning deltas) pass
 * through. Usage is checked as an object only: its counts are judged where usage enters metering.
 */

const blockIndex = z.number().int().nonnegative();

function isBlockIndex(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isOptionalStringField(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

const messageStart = z.looseObject({ role: z.string() });
const contentBlockStart = z.looseObject({ contentBlockIndex: blockIndex, start: z.looseObject({ toolUse: z.looseObject({ toolUseId: z.string(), name: z.string() }).optional() }) });
const contentBlockDelta = z.looseObject({ contentBlockIndex: blockIndex, delta: z.looseObject({ text: z.string().optional(), toolUse: z.looseObject({ input: z.string() }).optional() }) });
const contentBlockStop = z.looseObject({ contentBlockIndex: blockIndex });
const messageStop = z.looseObject({ stopReason: z.string() });
const metadata = z.looseObject({ usage: converseUsageSchema.optional() });

type Infer<Schema extends z.ZodType> = z.infer<Schema>;

/** The events the translator reads, by type: each one's shape (name, schema, guard). */
export const converseEventShapes = {
  messageStart: {
    name: 'ConverseStream messageStart',
    schema: messageStart,
    is: (value): value is Infer<typeof messageStart> => isObject(value) && typeof value.role === 'string',
  } satisfies EventShape<Infer<typeof messageStart>>,
  contentBlockStart: {
    name: 'ConverseStream contentBlockStart',
    schema: contentBlockStart,
    is: (value): value is Infer<typeof contentBlockStart> => {
      if (!isObject(value) || !isBlockIndex(value.contentBlockIndex) || !isObject(value.start)) return false;
      const toolUse = value.start.toolUse;
      return toolUse === undefined || (isObject(toolUse) && typeof toolUse.toolUseId === 'string' && typeof toolUse.name === 'string');
    },
  } satisfies EventShape<Infer<typeof contentBlockStart>>,
  contentBlockDelta: {
    name: 'ConverseStream contentBlockDelta',
    schema: contentBlockDelta,
    is: (value): value is Infer<typeof contentBlockDelta> => {
      if (!isObject(value) || !isBlockIndex(value.contentBlockIndex) || !isObject(value.delta)) return false;
      const toolUse = value.delta.toolUse;
      return isOptionalStringField(value.delta.text) && (toolUse === undefined || (isObject(toolUse) && typeof toolUse.input === 'string'));
    },
  } satisfies EventShape<Infer<typeof contentBlockDelta>>,
  contentBlockStop: {
    name: 'ConverseStream contentBlockStop',
    schema: contentBlockStop,
    is: (value): value is Infer<typeof contentBlockStop> => isObject(value) && isBlockIndex(value.contentBlockIndex),
  } satisfies EventShape<Infer<typeof contentBlockStop>>,
  messageStop: {
    name: 'ConverseStream messageStop',
    schema: messageStop,
    is: (value): value is Infer<typeof messageStop> => isObject(value) && typeof value.stopReason === 'string',
  } satisfies EventShape<Infer<typeof messageStop>>,
  metadata: {
    name: 'ConverseStream metadata',
    schema: metadata,
    is: (value): value is Infer<typeof metadata> => isObject(value) && value.usage !== null && isOptionalObject(value.usage),
  } satisfies EventShape<Infer<typeof metadata>>,
};

/** One checked ConverseStream event, discriminated by its type. */
export type ConverseStreamEvent = { [Type in keyof typeof converseEventShapes]: { type: Type; payload: Infer<(typeof converseEventShapes)[Type]['schema']> } }[keyof typeof converseEventShapes];
