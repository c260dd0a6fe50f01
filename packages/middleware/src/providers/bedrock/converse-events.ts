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

/** An event's shape: its schema, and a guard over the same fields of a JSON object. */
function shapeOf<Schema extends z.ZodType>(type: string, schema: Schema, fieldsHold: (value: Record<string, unknown>) => boolean): EventShape<z.infer<Schema>> {
  return { name: `ConverseStream ${type}`, schema: schema as z.ZodType<z.infer<Schema>>, is: (value): value is z.infer<Schema> => isObject(value) && fieldsHold(value) };
}

function startsBlock(value: Record<string, unknown>): boolean {
  if (!isBlockIndex(value.contentBlockIndex) || !isObject(value.start)) return false;
  const toolUse = value.start.toolUse;
  return toolUse === undefined || (isObject(toolUse) && typeof toolUse.toolUseId === 'string' && typeof toolUse.name === 'string');
}

function carriesDelta(value: Record<string, unknown>): boolean {
  if (!isBlockIndex(value.contentBlockIndex) || !isObject(value.delta)) return false;
  const toolUse = value.delta.toolUse;
  return isOptionalStringField(value.delta.text) && (toolUse === undefined || (isObject(toolUse) && typeof toolUse.input === 'string'));
}

/** The events the translator reads, by type: each one's shape (name, schema, guard). */
export const converseEventShapes = {
  messageStart: shapeOf('messageStart', messageStart, (value) => typeof value.role === 'string'),
  contentBlockStart: shapeOf('contentBlockStart', contentBlockStart, startsBlock),
  contentBlockDelta: shapeOf('contentBlockDelta', contentBlockDelta, carriesDelta),
  contentBlockStop: shapeOf('contentBlockStop', contentBlockStop, (value) => isBlockIndex(value.contentBlockIndex)),
  messageStop: shapeOf('messageStop', messageStop, (value) => typeof value.stopReason === 'string'),
  metadata: shapeOf('metadata', metadata, (value) => value.usage !== null && isOptionalObject(value.usage)),
};

/** One checked ConverseStream event, discriminated by its type. */
export type ConverseStreamEvent = { [Type in keyof typeof converseEventShapes]: { type: Type; payload: (typeof converseEventShapes)[Type] extends EventShape<infer Event> ? Event : never } }[keyof typeof converseEventShapes];
