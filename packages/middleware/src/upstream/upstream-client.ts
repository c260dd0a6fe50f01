import type { IncomingHttpHeaders } from 'node:http';
import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import type { RelayConfig } from './relay-settings.js';
import { upstreamRequestIdOf, type CancelSignal } from '../http/index.js';
import { WholeAnswer, type WholeAnswerLimits, type WholeAnswerOutcome } from './whole-answer.js';
import { UpstreamFailure } from './upstream-failure.js';
import { StreamedAnswer, type UpstreamBody } from './streamed-answer.js';
import { http2AgentOptions } from './http2-multiplexing.js';
import { redactHeaders, redactSecrets, upstreamSecrets } from './redact-secrets.js';

/** An upstream URL split as undici takes it (see ProviderDefinition.prepare). */
export interface UpstreamTarget {
  origin: string;
  path: string;
}

export interface UpstreamCall {
  target: UpstreamTarget;
  /** Complete: content type, accept and credentials included (see ProviderDefinition.prepare). */
  headers: Readonly<Record<string, string>>;
  body: unknown;
  timeoutMs: number;
  signal: CancelSignal;
  /** `headers`: the error answer's, for providers that name the error there (AWS `x-amzn-errortype`). */
  parseError(body: unknown, headers: IncomingHttpHeaders): { message?: string; code?: string };
}

/** A successful answer whose body is still arriving: an SSE stream. */
export interface UpstreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: UpstreamBody;
  /** The credentials the call carried: pass them to the body's relay so no event relays them. */
  secrets: readonly string[];
}

/** A successful answer read whole and parsed. */
export interface UpstreamJson {
  status: number;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/**
 * Calls providers over one keep-alive undici Agent. A non-2xx answer is read, parsed best-effort and
 * thrown as an UpstreamFailure, so callers only ever see a successful response or a failure to classify.
 * Every attempt has an overall deadline and every body read whole a size limit (`relay`); past either
 * it fails with a non-transient UpstreamFailure naming the limit.
 *
 * @example
 * const client = new UpstreamClient(config.relay);
 * const { body } = await client.postJson(call);
 * const stream = await client.postStream({ ...call, body: { ...call.body, stream: true } });
 */
export class UpstreamClient {
  readonly #agent: Agent;
  readonly #limits: WholeAnswerLimits;
  /** `relay.http2`: undici multiplexes only requests marked idempotent (see http2AgentOptions). */
  readonly #multiplexed: boolean;

  constructor(private readonly relay: Pick<RelayConfig, 'connections' | 'maxAnswerBytes' | 'attemptDeadlineMs' | 'http2'>) {
    this.#agent = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: relay.connections, ...http2AgentOptions(relay.http2) });
    this.#multiplexed = relay.http2;
    this.#limits = { maxBytes: relay.maxAnswerBytes, deadlineMs: relay.attemptDeadlineMs };
  }

  /**
   * Sends the call and reads the whole answer as JSON. The bytes are collected straight from undici's
   * dispatcher: request()'s body stream per answer was a tenth of a relayed call's main-thread CPU
   * (two builds side by side under the same load).
   * A 2xx body that is not JSON, or that stops arriving, is an unreadable answer: transient, like an
   * unreachable provider.
   */
  postJson(call: UpstreamCall): Promise<UpstreamJson> {
    return this.postJsonThen(call, theAnswer);
  }

  /**
   * postJson with the answer handled in the call's own callback, as it arrives: the promise settles with what
   * `answered` returns (or rejects with what it throws), so a caller that only acts on the answer takes no
   * promise and microtask of its own for it (a model call's JSON answer, issue 19).
   */
  postJsonThen<T>(call: UpstreamCall, answered: (answer: UpstreamJson) => T | Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      this.#agent.dispatch(
        this.#options(call, undefined),
        new WholeAnswer(call.signal, this.#limits, (outcome) => {
          try {
            resolve(answered(readJson(call, outcome)));
          } catch (error) {
            reject(error);
          }
        }),
      );
    });
  }

  /**
   * Sends the call and resolves once a successful answer's headers arrived; its body streams on, pushed
   * through `body.relay` (StreamedAnswer). The attempt's deadline stays on the body: past it the relay fails
   * with the deadline's UpstreamFailure.
   */
  postStream(call: UpstreamCall): Promise<UpstreamResponse> {
    return new Promise((resolve, reject) => {
      const answer = new StreamedAnswer(call.signal, this.relay.attemptDeadlineMs, this.relay.maxAnswerBytes, (head) => {
        if (head.kind === 'failed') {
          // A relay limit's failure is final as it is; anything else without an answer is unreachable.
          reject(head.error instanceof UpstreamFailure || call.signal.aborted ? head.error : unreachable(head.error));
          return;
        }
        const secrets = upstreamSecrets(call.headers);
        redactHeaders(head.headers, secrets);
        if (head.kind === 'streaming') resolve({ status: head.status, headers: head.headers, body: answer, secrets });
        else reject(refusal(call, head.status, head.headers, head.text));
      });
      this.#agent.dispatch(this.#options(call, undefined), answer);
    });
  }

  /**
   * Spelled out, not spread: in V8 (Node 20) `{ ...target, method, … }` gives each object a hidden class
   * of its own, and undici reading a new shape on every call cost ~12% of a relayed call's CPU.
   */
  #options(call: UpstreamCall, signal: AbortSignal | undefined): Dispatcher.RequestOptions {
    const { origin, path } = call.target;
    return {
      origin,
      path,
      method: 'POST',
      headers: call.headers,
      // A string is the prepared body's exact bytes (signed by some providers); anything else is JSON.
      body: typeof call.body === 'string' ? call.body : JSON.stringify(call.body),
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
      signal,
      idempotent: this.#multiplexed,
    };
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

function theAnswer(answer: UpstreamJson): UpstreamJson {
  return answer;
}

function readJson(call: UpstreamCall, outcome: WholeAnswerOutcome): UpstreamJson {
  if (outcome.kind === 'failed') {
    // A relay limit's failure is final as it is; anything else without an answer is unreachable.
    if (outcome.error instanceof UpstreamFailure) throw outcome.error;
    throw call.signal.aborted ? outcome.error : unreachable(outcome.error);
  }
  const { status, headers, interrupted } = outcome;
  // A provider or proxy may echo the credentials it received, in an error, a body or a header (issue 15 item 3).
  const secrets = upstreamSecrets(call.headers);
  redactHeaders(headers, secrets);
  const text = redactSecrets(outcome.text, secrets);
  if (status < 200 || status >= 300) throw refusal(call, status, headers, interrupted ? '' : text);
  if (interrupted) throw unreadable(interrupted);
  try {
    return { status, headers, body: JSON.parse(text) };
  } catch (error) {
    throw unreadable(error);
  }
}

/** A 2xx body that is not JSON or stopped arriving: no status to relay, so transient like no answer. */
function unreadable(cause: unknown): UpstreamFailure {
  return new UpstreamFailure('Upstream provider sent an unreadable response', { cause });
}

/**
 * The provider answered with an error status: its own message and code when its body has them. A status that is
 * neither a success nor an error (a 3xx redirect, 304, a code past 599) is no answer to relay: contract §2.3
 * relays the provider's 4xx and 5xx only, so it fails like an unreachable provider (transient: retried, failed
 * over, then 502). Redirects are never followed, so the provider's credentials never travel to another origin.
 */
function refusal(call: UpstreamCall, status: number, headers: IncomingHttpHeaders, received: string): UpstreamFailure {
  if (status < 400 || status > 599) return notAnErrorStatus(status, headers);
  const text = redactSecrets(received, upstreamSecrets(call.headers));
  const parsed = parseJson(text);
  const { message, code } = call.parseError(parsed, headers);
  return new UpstreamFailure(message ?? (text.slice(0, 500) || `Upstream provider answered ${status}`), {
    status,
    code,
    body: relayedBody(parsed, text),
    retryAfterMs: retryAfterMs(headers['retry-after']),
    requestId: upstreamRequestIdOf(headers),
  });
}

/** RFC 9110 §15.4: the statuses that send a client to another URL (`Location`). */
const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

function notAnErrorStatus(status: number, headers: IncomingHttpHeaders): UpstreamFailure {
  const what = REDIRECTS.has(status) ? 'a redirect, which is not followed' : 'not a status Tollgate relays';
  return new UpstreamFailure(`Upstream provider answered HTTP ${status} (${what}): check the provider's baseUrl`, { requestId: upstreamRequestIdOf(headers) });
}

function unreachable(error: unknown): UpstreamFailure {
  return new UpstreamFailure(`Upstream provider could not be reached: ${describe(error)}`, { cause: error });
}

function describe(error: unknown): string {
  if (error instanceof undiciErrors.UndiciError) return (error as { code?: string }).code ?? error.message;
  const code = (error as { code?: string } | null)?.code;
  return code ?? (error instanceof Error ? error.message : String(error));
}

/**
 * The provider's error body as it may be relayed (embeddings relay it whole, contract §2.3): its JSON when that can be
 * written back, else its text. JSON nested deeper than JSON.stringify's call stack is neither: none is relayed (the
 * error then answers in the standard shape with the provider's status), where rendering it was a 500.
 */
function relayedBody(parsed: unknown, text: string): unknown {
  if (parsed === undefined) return text;
  try {
    JSON.stringify(parsed);
    return parsed;
  } catch {
    return undefined;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `Retry-After` as delay-seconds or as an HTTP-date (RFC 9110 §10.2.3), in milliseconds from now. */
function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}
