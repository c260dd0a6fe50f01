import type { IncomingHttpHeaders } from 'node:http';
import { UpstreamFailure } from '../../upstream/index.js';

/**
 * Bedrock Runtime's error types and the HTTP status each answers with (Converse / ConverseStream API
 * reference). Over HTTP the status comes with the answer; inside a stream an exception message has only
 * its type, so this table gives it the status it would have had: that status decides the retry
 * classification (429 and 5xx transient, contract §7.1) and is relayed with `type: api_error` (§2.3).
 */
export const bedrockErrorStatus: Readonly<Record<string, number>> = {
  ValidationException: 400,
  ServiceQuotaExceededException: 400,
  AccessDeniedException: 403,
  InvalidSignatureException: 403,
  UnrecognizedClientException: 403,
  ExpiredTokenException: 403,
  ResourceNotFoundException: 404,
  ModelTimeoutException: 408,
  ModelErrorException: 424,
  ModelStreamErrorException: 424,
  ThrottlingException: 429,
  ModelNotReadyException: 429,
  InternalServerException: 500,
  ServiceUnavailableException: 503,
};

/** An error type as AWS spells it in `x-amzn-errortype` (`ValidationException:http://…`) or a stream's `:exception-type` (`throttlingException`). */
export function errorTypeName(raw: string): string {
  const name = raw.split(':')[0]!.trim();
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/**
 * The provider's message and code from a Bedrock error answer: the message is the body's `message`
 * (`Message` on some AWS front ends), the code the `x-amzn-errortype` header, else the body's `__type`.
 *
 * @example
 * parseBedrockError({ message: 'Too many requests' }, { 'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/' })
 * // { message: 'Too many requests', code: 'ThrottlingException' }
 */
export function parseBedrockError(body: unknown, headers?: IncomingHttpHeaders): { message?: string; code?: string } {
  const fields = (body ?? {}) as { message?: unknown; Message?: unknown; __type?: unknown };
  const message = typeof fields.message === 'string' ? fields.message : typeof fields.Message === 'string' ? fields.Message : undefined;
  const header = headers?.['x-amzn-errortype'];
  const rawType = typeof header === 'string' ? header : typeof fields.__type === 'string' ? fields.__type.split('#').pop()! : undefined;
  return { message, code: rawType ? errorTypeName(rawType) : undefined };
}

/**
 * An in-stream exception (`:message-type: exception`) as the attempt's failure, with the status its type
 * has over HTTP (500 when unknown: a failure of Bedrock's, not of the request).
 */
export function failureOfException(rawType: string, payload: string): UpstreamFailure {
  const code = errorTypeName(rawType);
  let body: unknown = payload;
  try {
    body = JSON.parse(payload);
  } catch {}
  const { message } = parseBedrockError(body);
  return new UpstreamFailure(message ?? `Upstream Bedrock stream reported ${code}`, { status: bedrockErrorStatus[code] ?? 500, code, body });
}
