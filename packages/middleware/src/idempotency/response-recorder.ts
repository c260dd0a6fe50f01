import type { OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { ANSWER_TAP, type AnswerTap } from '../http/index.js';
import type { StoredAnswer } from './idempotency-types.js';

/** Per connection, not per answer: a replay gets its own. */
const NOT_REPLAYED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date']);

/**
 * Keeps a copy of what a handler writes (status, headers, body bytes up to a bound) so an idempotent
 * request's answer can be replayed. Installed only on requests that carry an Idempotency-Key, so other
 * requests pay nothing for it. A JSON answer is told by sendJson (its ANSWER_TAP: the payload string as
 * written, kept as is, nothing wrapped); a stream's writes are seen by wrapping the response's methods.
 */
export class ResponseRecorder {
  /**
   * A stream's writes as given: a UTF-8 string (an SSE frame) is copied once, into the kept body, at the end.
   * Made only for a stream (a keyed JSON answer allocates nothing it does not keep: issue 22).
   */
  #chunks: (Buffer | string)[] | undefined = undefined;
  /** The JSON payload as sendJson wrote it (a tapped response); a string owns its memory, so it is kept without a copy. */
  #payload: string | undefined = undefined;
  #bytes = 0;
  #tooLarge = false;
  /** The headers given to writeHead (sendJson's own object, or the wrapped writeHead's argument). */
  #given: OutgoingHttpHeaders | undefined = undefined;
  /**
   * Whether the handler ended the response, its answer whole, whether or not its client was still there
   * to read it (a client gone before it came gets it on its retry). A relay cut short destroys the response
   * instead of ending it.
   */
  endedWhole = false;

  /** `json`: the answer is one sendJson (a non-streaming model call), told through its tap. */
  constructor(
    private readonly res: ServerResponse,
    private readonly maxBytes: number,
    json = false,
  ) {
    if (json) (res as { [ANSWER_TAP]?: AnswerTap })[ANSWER_TAP] = this.#tapped;
    else {
      this.#chunks = [];
      this.#wrap(res);
    }
  }

  readonly #tapped: AnswerTap = (_status, headers, payload) => {
    this.#given = headers;
    this.endedWhole = true;
    // A UTF-8 byte is at most as many as three UTF-16 units: the exact count only when that could pass the bound.
    if (payload.length * 3 > this.maxBytes && Buffer.byteLength(payload) > this.maxBytes) this.#tooLarge = true;
    else this.#payload = payload;
  };

  #wrap(res: ServerResponse): void {
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.writeHead = ((...args: unknown[]) => {
      const headers = args.find((arg, i) => i > 0 && typeof arg === 'object' && arg !== null && !Array.isArray(arg));
      if (headers) this.#given = headers as OutgoingHttpHeaders;
      return writeHead(...args);
    }) as ServerResponse['writeHead'];
    res.write = ((...args: unknown[]) => {
      this.#keep(args[0], args[1]);
      return write(...args);
    }) as ServerResponse['write'];
    res.end = ((...args: unknown[]) => {
      if (typeof args[0] !== 'function') this.#keep(args[0], args[1]);
      this.endedWhole = true;
      return end(...args);
    }) as ServerResponse['end'];
  }

  /** The answer as written; undefined when it was larger than the bound (it is then not replayable). */
  answer(): StoredAnswer | undefined {
    if (this.#tooLarge) return undefined;
    const headers: [string, string | string[]][] = [];
    // Headers set before writeHead make Node merge writeHead's own into them (its names winning): then the set
    // ones are all of them. Else writeHead's object was sent as it is, and it is all of them (the gateway's
    // JSON answers: one object, nothing set before). No name is looked up twice either way.
    const set = this.res.getHeaders();
    let merged = false;
    for (const name in set) {
      merged = true;
      keepHeader(headers, name, set[name]);
    }
    const given = this.#given;
    if (!merged && given) for (const name in given) keepHeader(headers, name.toLowerCase(), given[name]);
    return { status: this.res.statusCode, headers, body: this.#payload ?? ownedBody(this.#chunks ?? [], this.#bytes) };
  }

  get status(): number {
    return this.res.statusCode;
  }

  #keep(chunk: unknown, encoding: unknown): void {
    if (this.#tooLarge || chunk === undefined || chunk === null) return;
    // A Buffer written is not changed afterwards by its writer (Node may still be sending it): kept without a copy.
    // A UTF-8 string (every SSE frame) is kept as it is and counted, not encoded per write.
    const utf8 = typeof chunk === 'string' && (typeof encoding !== 'string' || encoding === 'utf8' || encoding === 'utf-8');
    const kept = utf8 ? chunk : typeof chunk === 'string' ? Buffer.from(chunk, encoding as BufferEncoding) : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    this.#bytes += typeof kept === 'string' ? Buffer.byteLength(kept) : kept.length;
    if (this.#bytes > this.maxBytes) {
      this.#tooLarge = true;
      this.#chunks = [];
      return;
    }
    this.#chunks!.push(kept);
  }
}

/**
 * The body in memory of its own: a kept answer lives up to 24 hours, and a chunk may be a view into a larger
 * buffer (Node's 8 KiB pool for small strings, a socket's read buffer) that it would hold alive unaccounted.
 * One chunk that already owns its memory is kept as it is; otherwise the chunks are copied once.
 */
function ownedBody(chunks: (Buffer | string)[], bytes: number): Buffer {
  const only = chunks.length === 1 ? chunks[0]! : undefined;
  if (only instanceof Buffer && only.byteOffset === 0 && only.buffer.byteLength === only.length) return only;
  const body = Buffer.allocUnsafeSlow(bytes);
  let at = 0;
  for (const chunk of chunks) at += typeof chunk === 'string' ? body.write(chunk, at) : chunk.copy(body, at);
  return body;
}

function keepHeader(headers: [string, string | string[]][], name: string, value: OutgoingHttpHeader | undefined): void {
  if (value === undefined || NOT_REPLAYED.has(name)) return;
  headers.push([name, typeof value === 'number' ? String(value) : value]);
}

/**
 * Writes a kept answer again, marked as a replay; its headers replace those of the same names set before.
 * `requestId` (this request's id header) goes first, so a kept answer without one (a record an earlier version
 * wrote) still carries an id; a kept one (the id of the request that ran, README) replaces it.
 */
export function replayAnswer(res: ServerResponse, answer: StoredAnswer, requestId?: readonly [name: string, value: string]): void {
  if (requestId) res.setHeader(requestId[0], requestId[1]);
  for (const [name, value] of answer.headers) res.setHeader(name, value);
  res.setHeader('idempotent-replayed', 'true');
  res.writeHead(answer.status);
  res.end(answer.body);
}
