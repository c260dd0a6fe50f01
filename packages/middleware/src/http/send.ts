import type { ServerResponse } from 'node:http';

/**
 * Where a response whose JSON answer is kept for an Idempotency-Key (idempotency/response-recorder.ts) is
 * told what sendJson wrote: the recorder then wraps none of the response's methods (README "Idempotency keys").
 * A symbol-keyed property, set only on such responses; the other answers pay one missed property read.
 */
export const ANSWER_TAP = Symbol('tollgate.answerTap');
export type AnswerTap = (status: number, headers: Record<string, string | number>, payload: string) => void;

/**
 * Writes a complete JSON response. Headers already sent (a stream in progress) make this a no-op
 * so that a late error can never corrupt a response.
 *
 * @example
 * sendJson(res, 200, { type: 'ok', context: {} });
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const payload = JSON.stringify(body);
  // The fixed headers before the spread: `{ ...headers, more }` gives each object a hidden class of its own in V8.
  writeJson(res, status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers }, payload);
}

/**
 * sendJson of a JSON text already serialized, for a caller whose headers object was built for this one answer (a
 * model call's, serialized before it is billed): the JSON headers are added to it, not copied with it into another
 * object (issue 19).
 *
 * @example
 * sendJsonTextWithOwnHeaders(res, 200, JSON.stringify(completion), { 'x-request-id': id });
 */
export function sendJsonTextWithOwnHeaders(res: ServerResponse, status: number, payload: string, headers: Record<string, string | number>): void {
  if (res.headersSent) return;
  headers['content-type'] = 'application/json';
  headers['content-length'] = Buffer.byteLength(payload);
  writeJson(res, status, headers, payload);
}

function writeJson(res: ServerResponse, status: number, head: Record<string, string | number>, payload: string): void {
  res.writeHead(status, head);
  res.end(payload);
  (res as { [ANSWER_TAP]?: AnswerTap })[ANSWER_TAP]?.(status, head, payload);
}
