import { hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ServiceError } from '../errors/index.js';
import type { IdempotencyClaim, IdempotencyStore } from './idempotency-types.js';
import { ResponseRecorder, replayAnswer } from './response-recorder.js';

export interface IdempotentRequest {
  req: IncomingMessage;
  res: ServerResponse;
  org: string;
  /** The validated request body: two requests with the same key must carry the same one. */
  body: unknown;
  store: IdempotencyStore;
  maxAnswerBytes: number;
  /** A streamed answer (SSE); else one JSON answer written by sendJson, recorded through its tap. */
  stream: boolean;
  /**
   * This request's id header, written on a replay before the kept headers (see replayAnswer). Not set on the
   * response up front: a header set before sendJson's writeHead makes Node merge each of its headers in with
   * setHeader instead of sending its object as it is (issue 22).
   */
  requestId?: readonly [name: string, value: string];
}

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Runs a model request at most once per `Idempotency-Key` and organization (README "Idempotency keys",
 * beyond contract §7.3 rule 4): the first runs and its whole 2xx answer is kept; a repeat with the same
 * body gets that answer replayed (JSON or the whole SSE stream, byte for byte) and is never admitted or
 * billed; a repeat while the first still runs answers 409 `idempotency_key_in_use` (retryable); a repeat
 * with another body 422 `idempotency_key_reused`. A refusal, a failure or an answer cut short frees the
 * key, so a retry runs again; a whole answer is kept even if its client left before it came (the caller
 * lets such a request run on). Without the header, `run` is called as is.
 *
 * @example
 * await runIdempotently({ req, res, org, body, store, maxAnswerBytes, stream: false }, () => serve());
 */
export async function runIdempotently(request: IdempotentRequest, run: () => Promise<void>): Promise<void> {
  const header = request.req.headers['idempotency-key'];
  if (header === undefined) return run();
  const key = Array.isArray(header) ? header[0] : header;
  if (key === undefined || !KEY_PATTERN.test(key)) {
    throw new ServiceError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters', { param: 'Idempotency-Key' });
  }
  const fingerprint = fingerprintOf(request);
  const { store, org } = request;
  let claim: IdempotencyClaim;
  try {
    // The memory store answers synchronously: no await, so no hop, on the request's path.
    const begun = store.begin(org, key, fingerprint);
    claim = begun instanceof Promise ? await begun : begun;
  } catch (error) {
    throw new ServiceError('policy_unavailable', 'The idempotency record could not be read; retry in a few seconds', { cause: error });
  }
  switch (claim.state) {
    case 'mismatch':
      throw new ServiceError('idempotency_key_reused', 'This Idempotency-Key was used with a different request; use a new key for a new request');
    case 'running':
      throw new ServiceError('idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry once it has finished');
    case 'done':
      if (!claim.answer) throw new ServiceError('idempotency_answer_not_kept', 'A request with this Idempotency-Key already ran, and its answer was too large to keep');
      replayAnswer(request.res, claim.answer, request.requestId);
      return;
    case 'claimed':
      break;
  }
  const recorder = new ResponseRecorder(request.res, request.maxAnswerBytes, !request.stream);
  try {
    await run();
  } finally {
    const whole = recorder.endedWhole && recorder.status >= 200 && recorder.status < 300;
    // A store that fails here leaves a running claim, which expires (Redis: RUNNING_TTL_MS): never a second run meanwhile.
    try {
      const finished = whole ? store.complete(org, key, claim.token, recorder.answer()) : store.abandon(org, key, claim.token);
      if (finished) await finished;
    } catch {
      // Nothing to tell: the answer was already given (or the failure is being thrown).
    }
  }
}

/**
 * What "the same request" means for a key: method, path and the validated body. SHA-256 so a different body
 * can never pass for the kept one (it answers 422); one native call, and its 43 characters are all a record
 * keeps of the request.
 */
function fingerprintOf(request: IdempotentRequest): string {
  const url = request.req.url ?? '';
  const query = url.indexOf('?');
  return hash('sha256', `${request.req.method} ${query === -1 ? url : url.slice(0, query)}\n${JSON.stringify(request.body)}`, 'base64url');
}
