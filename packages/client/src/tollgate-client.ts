import { randomUUID } from 'node:crypto';
import { Agent, errors, request, type Dispatcher } from 'undici';
import { classifyError } from './classify-error.js';
import { OutcomeUnknownError, TollgateError } from './errors.js';
import { readBounded } from './read-body.js';
import { chatFamily, checkedStream, messagesFamily, responsesFamily } from './read-stream.js';
import { MAX_WAIT_MS, retryDelay, type RetryOptions } from './retry-policy.js';
import type { ChatChunk, ChatCompletion, ChatRequest, EmbeddingsResponse, Message, MessagesEvent, MessagesRequest, ResponsesEvent, SqlResult, SqlResults, SqlValue } from './types.js';

export interface TollgateClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** Retries for 429 rate_limited and 500/502/503/504; default 4. */
  maxRetries?: number;
  /** Retries for a 429 on /v1/messages*, where an exhausted allowance looks like a rate limit; default 1. */
  messagesMaxRetries?: number;
  /**
   * Retry calls whose connection failed or timed out. Off by default. Safe for model calls: each carries an
   * `Idempotency-Key` (one per call, the same on every attempt), so a retry of a request that did run gets
   * its answer replayed and is not billed again (Tollgate's README "Idempotency keys"). SQL has no key: a
   * retried write may run twice.
   */
  retryConnectionFailures?: boolean;
  /** Per attempt, headers and body together; default 10 minutes. */
  timeoutMs?: number;
  /**
   * The most one JSON answer, or one event of a stream, may take; default 256 MiB (above every Tollgate default:
   * `sql.maxResultBytes` 64 MiB, `relay.maxAnswerBytes` 32 MiB). Past it the client hangs up and raises a
   * TollgateError, so a faulty or hostile server cannot fill the caller's memory. Error bodies are read to 64 KiB.
   */
  maxAnswerBytes?: number;
  backoff?: { baseMs?: number; maxMs?: number };
  /**
   * The most one call spends waiting between its attempts, all waits together; default 5 minutes. A retry whose
   * wait would pass it (a `Retry-After` of days, a 503 storm) is not made: the error is raised at once, its
   * `retryAfter` telling the caller when to come back.
   */
  maxRetryWaitMs?: number;
  dispatcher?: Dispatcher;
  /** Injectable for tests: how to wait, and the jitter source. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** A model call's Idempotency-Key; by default a fresh one per call, kept across its retries. */
  idempotencyKey?: string;
}

const DEFAULT_MAX_ANSWER_BYTES = 256 * 1024 * 1024;
/** What is read of an error's body: its message and code are at the start; a proxy's page can be endless. */
const ERROR_BODY_BYTES = 64 * 1024;

/** Model calls that run and bill: they carry an Idempotency-Key. */
const idempotentPaths = new Set(['/v1/chat/completions', '/v1/messages', '/v1/responses', '/v1/embeddings']);

/**
 * A typed client for both Tollgate services that follows the contract's retry rules (§7.3), raises typed
 * errors decided by status, headers and body (§7), and checks streams end normally (§6.1).
 *
 * @example
 * const tg = new TollgateClient({ baseUrl: 'http://127.0.0.1:8787', apiKey });
 * const rows = await tg.sql('SELECT 1 AS one');
 * for await (const chunk of tg.chatStream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] })) {}
 */
export class TollgateClient {
  readonly #options: Required<Omit<TollgateClientOptions, 'apiKey' | 'backoff' | 'dispatcher'>> & { apiKey?: string; dispatcher: Dispatcher };
  readonly #retry: RetryOptions;

  constructor(options: TollgateClientOptions) {
    if (!/^https?:\/\//.test(options.baseUrl)) throw new TypeError('baseUrl must be an http(s) URL');
    // A key read from a file keeps its newline: no header can carry it, and undici would refuse every call.
    if (options.apiKey !== undefined && !/^[\x21-\x7e]*$/.test(options.apiKey)) throw new TypeError('apiKey must be visible ASCII characters (no spaces or line breaks: trim it)');
    if (options.maxRetryWaitMs !== undefined && !(options.maxRetryWaitMs >= 0 && options.maxRetryWaitMs <= MAX_WAIT_MS)) throw new TypeError(`maxRetryWaitMs must be between 0 and ${MAX_WAIT_MS} (a longer timer fires at once)`);
    this.#options = {
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      apiKey: options.apiKey,
      maxRetries: options.maxRetries ?? 4,
      messagesMaxRetries: options.messagesMaxRetries ?? 1,
      retryConnectionFailures: options.retryConnectionFailures ?? false,
      timeoutMs: options.timeoutMs ?? 600_000,
      maxRetryWaitMs: options.maxRetryWaitMs ?? 300_000,
      maxAnswerBytes: options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
      dispatcher: options.dispatcher ?? new Agent({ keepAliveTimeout: 30_000 }),
      sleep: options.sleep ?? sleep,
      random: options.random ?? Math.random,
    };
    this.#retry = { maxRetries: this.#options.maxRetries, messagesMaxRetries: this.#options.messagesMaxRetries, baseMs: options.backoff?.baseMs ?? 500, maxMs: options.backoff?.maxMs ?? 30_000 };
  }

  /** Runs SQL; `params` bind `?` (array) or `:name` (object) placeholders. */
  sql(query: string, options: CallOptions & { db?: string; params?: SqlValue[] | Record<string, SqlValue> } = {}): Promise<SqlResult> {
    const body = { query, ...(options.params ? { params: options.params } : {}), ...(options.db ? { context: { db: options.db } } : {}) };
    return this.#json('POST', '/api/sql/query', body, options);
  }

  /** Runs SQL and answers every statement's result, in order (`results: "all"`), not only the last one's. */
  sqlAll(query: string, options: CallOptions & { db?: string; params?: SqlValue[] | Record<string, SqlValue> } = {}): Promise<SqlResults> {
    const body = { query, results: 'all', ...(options.params ? { params: options.params } : {}), ...(options.db ? { context: { db: options.db } } : {}) };
    return this.#json('POST', '/api/sql/query', body, options);
  }

  /** The catalog's aliases, as GET /v1/models lists them. */
  async models(options: CallOptions = {}): Promise<string[]> {
    const list = await this.#json<{ data: { id: string }[] }>('GET', '/v1/models', undefined, options);
    return list.data.map((model) => model.id);
  }

  chat(body: ChatRequest, options: CallOptions = {}): Promise<ChatCompletion> {
    return this.#json('POST', '/v1/chat/completions', { ...body, stream: false }, options);
  }

  async *chatStream(body: ChatRequest, options: CallOptions = {}): AsyncGenerator<ChatChunk> {
    const { stream, headers } = await this.#stream('/v1/chat/completions', { ...body, stream: true }, options);
    yield* checkedStream(stream, chatFamily, headers, this.#options.maxAnswerBytes) as AsyncGenerator<ChatChunk>;
  }

  messages(body: MessagesRequest, options: CallOptions = {}): Promise<Message> {
    return this.#json('POST', '/v1/messages', { ...body, stream: false }, options);
  }

  async *messagesStream(body: MessagesRequest, options: CallOptions = {}): AsyncGenerator<MessagesEvent> {
    const { stream, headers } = await this.#stream('/v1/messages', { ...body, stream: true }, options);
    yield* checkedStream(stream, messagesFamily, headers, this.#options.maxAnswerBytes) as AsyncGenerator<MessagesEvent>;
  }

  responses(body: Record<string, unknown>, options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.#json('POST', '/v1/responses', { ...body, stream: false }, options);
  }

  async *responsesStream(body: Record<string, unknown>, options: CallOptions = {}): AsyncGenerator<ResponsesEvent> {
    const { stream, headers } = await this.#stream('/v1/responses', { ...body, stream: true }, options);
    yield* checkedStream(stream, responsesFamily, headers, this.#options.maxAnswerBytes) as AsyncGenerator<ResponsesEvent>;
  }

  embeddings(body: { model: string; input: string | string[]; [key: string]: unknown }, options: CallOptions = {}): Promise<EmbeddingsResponse> {
    return this.#json('POST', '/v1/embeddings', body, options);
  }

  countTokens(body: Omit<MessagesRequest, 'max_tokens'>, options: CallOptions = {}): Promise<{ input_tokens: number }> {
    return this.#json('POST', '/v1/messages/count_tokens', body, options);
  }

  async #json<T>(method: 'GET' | 'POST', path: string, body: unknown, options: CallOptions): Promise<T> {
    const { response, text } = await this.#send(method, path, body, options, false);
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new TollgateError({ status: response.statusCode, code: undefined, reason: undefined, headers: flatten(response.headers), body: text, message: `Expected JSON, got ${text.slice(0, 200)}` }, { cause: error });
    }
  }

  async #stream(path: string, body: unknown, options: CallOptions): Promise<{ stream: AsyncIterable<Uint8Array>; headers: Record<string, string> }> {
    const { response } = await this.#send('POST', path, body, options, true);
    return { stream: response.body, headers: flatten(response.headers) };
  }

  /** The wait before retrying a lost connection or a cut answer: exponential, with full jitter. */
  #backoff(attempt: number): number {
    return this.#options.random() * Math.min(this.#retry.maxMs, this.#retry.baseMs * 2 ** attempt);
  }

  /**
   * Waits `ms` before the call's next attempt, unless its waits together would pass `maxRetryWaitMs`: then false,
   * and the call raises its last error rather than sleep for as long as a server says.
   */
  async #wait(ms: number, call: { waited: number }, signal: AbortSignal | undefined): Promise<boolean> {
    if (call.waited + ms > this.#options.maxRetryWaitMs) return false;
    call.waited += ms;
    await this.#options.sleep(ms, signal);
    return true;
  }

  /** One call with the retry rules of §7.3: attempts, backoff with full jitter, Retry-After as a floor. */
  async #send(method: 'GET' | 'POST', path: string, body: unknown, options: CallOptions, stream: boolean): Promise<{ response: Dispatcher.ResponseData; text: string }> {
    const messagesEndpoint = path.startsWith('/v1/messages');
    const headers = this.#headers(messagesEndpoint, body !== undefined);
    if (idempotentPaths.has(path)) headers['idempotency-key'] = options.idempotencyKey ?? randomUUID();
    const call = { waited: 0 };
    for (let attempt = 0; ; attempt++) {
      let response: Dispatcher.ResponseData;
      const perAttempt = attemptSignal(options.signal, this.#options.timeoutMs);
      try {
        response = await request(this.#options.baseUrl + path, {
          method,
          dispatcher: this.#options.dispatcher,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: perAttempt.signal,
        });
        // The attempt lasts until its body is read or dropped: then its timer and listener go.
        response.body.once('close', perAttempt.done);
      } catch (error) {
        perAttempt.done();
        if (options.signal?.aborted) throw error;
        // Refused before sending (a header value no request can carry): the caller's mistake, nothing ran.
        if (error instanceof errors.InvalidArgumentError) throw error;
        if (this.#options.retryConnectionFailures && attempt < this.#retry.maxRetries && (await this.#wait(this.#backoff(attempt), call, options.signal))) continue;
        throw new OutcomeUnknownError({ status: 0, code: undefined, reason: undefined, headers: {}, body: undefined, message: `No answer from Tollgate (${(error as Error).message}); the request may have run` }, { cause: error });
      }
      const answered = flatten(response.headers);
      const isStream = (answered['content-type'] ?? '').includes('text/event-stream');
      if (response.statusCode >= 200 && response.statusCode < 300 && isStream === stream) {
        if (stream) return { response, text: '' };
        let answer: { text: string; cut: boolean };
        try {
          answer = await readBounded(response.body, this.#options.maxAnswerBytes);
        } catch (error) {
          if (options.signal?.aborted) throw error;
          // The answer's head arrived, its body did not: the request ran (contract §7.3 rule 4); retried like a lost connection.
          if (this.#options.retryConnectionFailures && attempt < this.#retry.maxRetries && (await this.#wait(this.#backoff(attempt), call, options.signal))) continue;
          throw new OutcomeUnknownError({ status: 0, code: undefined, reason: undefined, headers: answered, body: undefined, message: `The answer broke off (${(error as Error).message}); the request may have run` }, { cause: error });
        }
        // A whole answer that is too large: retrying would fetch it again.
        if (answer.cut) throw new TollgateError({ status: response.statusCode, code: undefined, reason: undefined, headers: answered, body: undefined, message: `The answer is larger than maxAnswerBytes (${this.#options.maxAnswerBytes} bytes); the client stopped reading it` });
        return { response, text: answer.text };
      }
      // Status and headers decide an error (contract §7: the body is best-effort): its start is enough.
      const { text } = await readBounded(response.body, ERROR_BODY_BYTES).catch(() => ({ text: '' }));
      // contract §6.1 rule 1: a failure before output is a JSON answer, checked by Content-Type.
      const error = response.statusCode < 300 ? new TollgateError({ status: response.statusCode, code: undefined, reason: undefined, headers: answered, body: text, message: `Expected ${stream ? 'a stream' : 'JSON'}, got ${answered['content-type'] ?? 'no content type'}` }) : classifyError(response.statusCode, answered, text);
      const delay = retryDelay(error, attempt, messagesEndpoint, this.#retry, this.#options.random);
      if (delay === undefined) throw error;
      // An abort that came while the error's body was read: no 'abort' event is left to end the sleep.
      if (options.signal?.aborted) throw options.signal.reason;
      if (!(await this.#wait(delay, call, options.signal))) throw error;
      if (options.signal?.aborted) throw options.signal.reason;
    }
  }

  #headers(messagesEndpoint: boolean, hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
    if (hasBody) headers['content-type'] = 'application/json';
    if (this.#options.apiKey) {
      headers.authorization = `Bearer ${this.#options.apiKey}`;
      if (messagesEndpoint) headers['x-api-key'] = this.#options.apiKey;
    }
    if (messagesEndpoint) headers['anthropic-version'] = '2023-06-01';
    return headers;
  }
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

/**
 * One attempt's signal: the caller's, or its timeout. Not `AbortSignal.any`, which on Node 20 leaves an entry on a
 * long-lived caller signal for every call; `done` drops the timer and the listener once the attempt is over.
 */
function attemptSignal(signal: AbortSignal | undefined, timeoutMs: number): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), timeoutMs);
  timer.unref();
  const onAbort = () => controller.abort(signal!.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
