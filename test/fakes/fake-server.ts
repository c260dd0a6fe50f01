import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server } from 'node:http2';
import type { AddressInfo, Server, Socket } from 'node:net';

/** What a fake received, so tests can assert what reached upstream. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** Set when the caller went away before the answer finished (Tollgate aborting upstream). */
  aborted: boolean;
  /** The id this fake sent back in its provider's request-id header, if the provider sends one. */
  requestId?: string;
  /** '1.1', or '2.0' when the fake speaks HTTP/2. */
  httpVersion: string;
}

export interface FakeServerOptions {
  /**
   * Speak cleartext HTTP/2 (h2c, prior knowledge) instead of HTTP/1.1, through node:http2's compatibility
   * API, as the providers' own servers speak HTTP/2. Failure injections that handle the socket itself
   * (`resetConnection`, `cutNextAnswers`, `dropAfterChunks`) are HTTP/1.1 only.
   */
  http2?: boolean;
}

export interface Failure {
  status: number;
  times?: number;
  message?: string;
}

/** What the next answers say; persists until changed. */
export interface ScriptedReply {
  text?: string;
  toolCalls?: { name: string; arguments: unknown }[];
  /** A stream that never finishes: content chunks, written as fast as the peer reads, until it leaves. */
  endless?: boolean;
  /** A JSON answer of exactly this many bytes (its content filled up), written as the peer reads, never held whole. */
  answerBytes?: number;
  /**
   * The answer when the request asks for structured output, as each provider gives it: OpenAI and Gemini
   * as the message's JSON text (`response_format` / `responseMimeType: application/json`), Anthropic as the
   * input of the tool its `tool_choice` forces (or, with `any`, of the last tool offered).
   */
  json?: unknown;
  /**
   * Prompt tokens served from the provider's prompt cache, reported in each provider's own field:
   * OpenAI `prompt_tokens_details.cached_tokens` / `input_tokens_details.cached_tokens` and Gemini
   * `cachedContentTokenCount` (both part of the prompt count), Anthropic `cache_read_input_tokens`
   * (beside `input_tokens`, which then counts only the rest).
   */
  cachedTokens?: number;
  /** Prompt tokens written to the cache: Anthropic's `cache_creation_input_tokens` (others have none). */
  cacheWriteTokens?: number;
  /** The whole text whatever output budget the request sets (a server that does not honour `max_tokens`). */
  ignoresBudget?: boolean;
}

/** Every answer's bytes (headers with the first piece) go out `bytes` at a time, one piece per `intervalMs`. */
export interface Trickle {
  bytes: number;
  intervalMs: number;
}

/** A request handler of one provider's wire format. */
export type FakeHandler = (ctx: FakeContext) => Promise<void> | void;

export interface FakeContext {
  req: IncomingMessage;
  res: ServerResponse;
  recorded: RecordedRequest;
  body: any;
  /** The body's bytes as received (a signed request's signature covers exactly these). */
  raw: Buffer;
  url: URL;
  fake: FakeServer;
}

/**
 * The shared harness of the fake providers: a real HTTP server on 127.0.0.1, port 0, that records every
 * request and fails on command (an error status N times, a drop after K stream events, refused or reset
 * connections, a slow answer). Each provider module supplies the wire format.
 */
export class FakeServer {
  readonly requests: RecordedRequest[] = [];
  reply_: ScriptedReply = {};
  #failures: Failure[] = [];
  #dropAfter: number | undefined;
  #delayMs = 0;
  #resets = 0;
  #cuts = 0;
  #raw: { status: number; body: string; contentType: string; closeShort?: boolean }[] = [];
  #trickle: Trickle | undefined;
  /** Body bytes written by endless streams so far: tests watch it stop growing when the peer stops reading. */
  streamedBytes = 0;
  #usageFields: Record<string, string> | undefined;
  #echoCredentials = false;
  #server: Server | undefined;
  #sockets = new Set<Socket>();
  #port = 0;
  #http2 = false;
  /** Connections accepted so far: HTTP/2 carries many requests on one. */
  connectionsAccepted = 0;
  /** Requests being answered now, and the most at once: whether calls ran side by side or one after another. */
  inFlight = 0;
  maxInFlight = 0;

  constructor(
    private readonly handler: FakeHandler,
    readonly pathPrefix: string,
    private readonly errorBody: (status: number, message: string) => unknown,
    /** The header in which the real provider names each answer (OpenAI `x-request-id`, Anthropic `request-id`). */
    private readonly requestIdHeader?: string,
  ) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.#port}${this.pathPrefix}`;
  }

  async start(options: FakeServerOptions = { http2: this.#http2 }): Promise<this> {
    this.#http2 = options.http2 === true;
    // The compatibility API's request and response stand in for node:http's in every handler.
    const handle = (req: IncomingMessage, res: ServerResponse) => void this.#handle(req, res);
    this.#server = this.#http2 ? createHttp2Server(handle as never) : createServer(handle);
    this.#server.on('connection', (socket: Socket) => {
      this.connectionsAccepted++;
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.#server!.listen(this.#port, '127.0.0.1', resolve));
    this.#port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  /** Answer the next `times` requests with the provider's real error body for `status`. */
  failNext(failure: Failure): void {
    for (let i = 0; i < (failure.times ?? 1); i++) this.#failures.push(failure);
  }

  /** Every following stream sends `k` events, then its socket is destroyed. */
  dropAfterChunks(k: number | undefined): void {
    this.#dropAfter = k;
  }

  /** Every following answer waits this long before its headers. */
  delay(ms: number): void {
    this.#delayMs = ms;
  }

  /** The next `times` requests get their socket destroyed without any answer. */
  resetConnection(times = 1): void {
    this.#resets += times;
  }

  /** The next `times` answers send their headers and half their body, then their socket is destroyed. */
  cutNextAnswers(times = 1): void {
    this.#cuts += times;
  }

  /**
   * The next `times` requests get this answer as it is, whatever the wire format says (a proxy's error page).
   * `closeShort`: its head and body go in one write, then the connection closes short of the Content-Length it
   * declared (a provider that dies right after its first bytes).
   */
  answerRawNext(answer: { status: number; body: string; contentType?: string; times?: number; closeShort?: boolean }): void {
    for (let i = 0; i < (answer.times ?? 1); i++) this.#raw.push({ status: answer.status, body: answer.body, contentType: answer.contentType ?? 'text/html', closeShort: answer.closeShort });
  }

  /** Every following answer trickles (undefined: back to full speed). */
  trickle(trickle: Trickle | undefined): void {
    this.#trickle = trickle;
  }

  /**
   * Every following answer reports these usage fields as the given JSON text, spliced in verbatim, so a
   * test can send what JSON.stringify cannot (`1e400`) or what a faulty provider does (`"5"`, `{}`).
   * Undefined restores honest usage.
   *
   * @example
   * fake.poisonUsage({ prompt_tokens: '1e400' });
   */
  poisonUsage(fields: Record<string, string> | undefined): void {
    this.#usageFields = fields;
  }

  /** The usage object an answer sends: the honest one, with poisoned fields as placeholders for `serialize`. */
  usageWith<T extends object>(usage: T): T {
    if (!this.#usageFields) return usage;
    const poisoned: Record<string, unknown> = { ...(usage as Record<string, unknown>) };
    for (const name of Object.keys(this.#usageFields)) poisoned[name] = `${RAW_MARK}${name}`;
    return poisoned as T;
  }

  /** JSON text of an answer, with poisoned usage fields spliced in as raw JSON. */
  serialize(value: unknown): string {
    let text = JSON.stringify(value);
    for (const [name, raw] of Object.entries(this.#usageFields ?? {})) text = text.split(JSON.stringify(`${RAW_MARK}${name}`)).join(raw);
    return text;
  }

  /**
   * Every following error answer (see failNext) appends the credentials the request carried to its
   * message, as a careless OpenAI-compatible proxy does: `Authorization`, `x-api-key`, `x-goog-api-key`, any `*token*`.
   */
  echoCredentials(on = true): void {
    this.#echoCredentials = on;
  }

  /** Sets what the following answers say. */
  reply(reply: ScriptedReply): void {
    this.reply_ = reply;
  }

  /** Stops listening and drops open connections: new connections are refused until `restore()`. */
  async refuseConnections(): Promise<void> {
    await this.#stopListening();
  }

  async restore(): Promise<void> {
    await this.start();
  }

  async close(): Promise<void> {
    await this.#stopListening();
  }

  get dropAfter(): number | undefined {
    return this.#dropAfter;
  }

  /** Sends `error` as this provider's error body. */
  sendError(res: ServerResponse, status: number, message: string): void {
    const body = JSON.stringify(this.errorBody(status, message));
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  async #stopListening(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    const text = bytes.toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const url = new URL(req.url ?? '/', 'http://fake');
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, headers: req.headers, body, aborted: false, httpVersion: req.httpVersion };
    this.requests.push(recorded);
    if (this.requestIdHeader) {
      // Like the real providers: every answer, errors included, carries its id.
      recorded.requestId = `req_fake${++requestSequence}`;
      res.setHeader(this.requestIdHeader, recorded.requestId);
    }
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    res.on('close', () => {
      this.inFlight--;
      if (!res.writableFinished) recorded.aborted = true;
    });
    if (this.#resets > 0) {
      this.#resets--;
      req.socket.destroy();
      return;
    }
    if (this.#delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#delayMs));
    const raw = this.#raw.shift();
    if (raw) {
      const length = Buffer.byteLength(raw.body);
      res.writeHead(raw.status, { 'content-type': raw.contentType, 'content-length': raw.closeShort ? length + 1_000 : length });
      if (!raw.closeShort) return void res.end(raw.body);
      res.write(raw.body);
      res.socket?.end();
      return;
    }
    if (this.#cuts > 0) {
      this.#cuts--;
      cutAfterHalf(res);
    }
    if (this.#trickle) trickleOut(res, this.#trickle);
    const failure = this.#failures.shift();
    if (failure) {
      const message = failure.message ?? defaultMessage(failure.status);
      this.sendError(res, failure.status, this.#echoCredentials ? `${message} (received ${credentialsOf(req)})` : message);
      return;
    }
    await this.handler({ req, res, recorded, body, raw: bytes, url, fake: this });
  }
}

let requestSequence = 0;

/** The answer's headers and the first half of its body reach the peer; then the connection dies. */
function cutAfterHalf(res: ServerResponse): void {
  res.end = ((chunk?: string | Buffer) => {
    const bytes = Buffer.from(chunk ?? '');
    res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
    const socket = res.socket;
    setTimeout(() => socket?.destroy(), 30);
    return res;
  }) as ServerResponse['end'];
}

/** Queues what the answer writes and lets it out a few bytes per tick, as a slow or hostile provider does. */
function trickleOut(res: ServerResponse, { bytes, intervalMs }: Trickle): void {
  const queue: Buffer[] = [];
  let ending = false;
  const write = res.write.bind(res) as (chunk: Buffer) => boolean;
  const end = res.end.bind(res) as () => ServerResponse;
  res.write = ((chunk: string | Buffer) => {
    queue.push(Buffer.from(chunk));
    return true;
  }) as ServerResponse['write'];
  res.end = ((chunk?: string | Buffer) => {
    if (chunk) queue.push(Buffer.from(chunk));
    ending = true;
    return res;
  }) as ServerResponse['end'];
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    let budget = bytes;
    while (budget > 0 && queue.length > 0) {
      const head = queue[0]!;
      const piece = head.subarray(0, budget);
      write(piece);
      budget -= piece.length;
      if (piece.length === head.length) queue.shift();
      else queue[0] = head.subarray(piece.length);
    }
    if (queue.length === 0 && ending) {
      clearInterval(timer);
      end();
    }
  }, intervalMs);
}

const RAW_MARK = '__fake_raw_usage__:';

/** The credential headers a request carried, as a proxy that echoes them would print them. */
function credentialsOf(req: IncomingMessage): string {
  return Object.keys(req.headers)
    .filter((name) => /authorization|api-key|token/.test(name) && typeof req.headers[name] === 'string')
    .map((name) => `${name}: ${req.headers[name] as string}`)
    .join(', ');
}

function defaultMessage(status: number): string {
  if (status === 429) return 'Rate limit reached for requests';
  if (status === 529) return 'Overloaded';
  if (status >= 500) return 'The server had an error while processing your request';
  return `Bad request (${status})`;
}

/**
 * Writes SSE frames, honouring `dropAfterChunks`: after K frames the socket is destroyed mid-stream.
 * Returns false once dropped, so the caller stops.
 */
export class FakeSse {
  #sent = 0;
  #dropped = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly dropAfter: number | undefined,
    private readonly serialize: (value: unknown) => string = JSON.stringify,
  ) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  }

  send(data: unknown, event?: string): boolean {
    if (this.#dropped) return false;
    if (this.dropAfter !== undefined && this.#sent >= this.dropAfter) {
      this.#dropped = true;
      // Let the frames already written reach the peer first, as on a real connection that dies mid-stream.
      const socket = this.res.socket;
      setTimeout(() => socket?.destroy(), 30);
      return false;
    }
    this.res.write((event ? `event: ${event}\n` : '') + `data: ${typeof data === 'string' ? data : this.serialize(data)}\n\n`);
    this.#sent++;
    return true;
  }

  end(): void {
    if (!this.#dropped) this.res.end();
  }

  /**
   * Sends `frame()` again and again, waiting whenever the peer's buffers are full, until it leaves: a
   * generation that never ends. Counts its bytes in `fake.streamedBytes`.
   */
  async flood(fake: FakeServer, frame: () => unknown): Promise<void> {
    const res = this.res;
    while (!res.destroyed) {
      const text = `data: ${JSON.stringify(frame())}\n\n`;
      fake.streamedBytes += Buffer.byteLength(text);
      if (!res.write(text)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    }
  }
}

/**
 * Writes `head`, then filler, then `tail`: a JSON answer of `total` bytes with its content-length, waiting
 * whenever the peer's buffers are full; stops if the peer leaves. For providers that send hundreds of MB.
 */
export async function sendPadded(res: ServerResponse, head: string, total: number, tail: string): Promise<void> {
  const bytes = total - Buffer.byteLength(head) - Buffer.byteLength(tail);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': total });
  res.write(head);
  const block = Buffer.alloc(65_536, 'a');
  for (let sent = 0; sent < bytes && !res.destroyed; sent += block.length) {
    if (!res.write(block.subarray(0, Math.min(block.length, bytes - sent)))) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  if (!res.destroyed) res.end(tail);
}

/**
 * The fakes' deterministic token rule, so metering tests can predict exact numbers: every
 * whitespace-separated word of every string in the request's messages (and system prompt) is one input
 * token; every word of the reply is one output token.
 */
export function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** All text in a messages-like array (strings and `text` parts), joined by spaces. */
export function textOfMessages(messages: unknown, system?: unknown): string {
  const parts: string[] = [];
  const walk = (node: unknown): void => {
    if (typeof node === 'string') parts.push(node);
    else if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      if (typeof record.text === 'string') parts.push(record.text);
      if (typeof record.content === 'string' || Array.isArray(record.content)) walk(record.content);
    }
  };
  walk(system);
  walk(messages);
  return parts.join(' ');
}

/** The default reply: echoes the last user words, so tests can see the prompt arrived. */
export function echoReply(lastUserText: string): string {
  return `Echo: ${lastUserText}`.trim();
}
