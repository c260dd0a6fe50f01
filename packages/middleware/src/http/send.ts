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
  const head = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers };
  res.writeHead(status, head);
  res.end(payload);
  (res as { [ANSWER_TAP]?: AnswerTap })[ANSWER_TAP]?.(status, head, payload);
}
