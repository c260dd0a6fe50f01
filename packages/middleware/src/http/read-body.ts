import type { IncomingMessage } from 'node:http';
import { ServiceError, validationError } from '../errors/index.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth.js';
import type { OrgSlot } from './org-slots.js';

/** A request whose body a framework's parser may already have read (`req.body` in Express). */
export type MaybeParsedRequest = IncomingMessage & { body?: unknown };

/**
 * Reads and parses a JSON request body, honouring a body that a parser in front already consumed.
 * Oversized bodies answer 413 without buffering them whole; a body still arriving after `deadlineMs`
 * answers 408; malformed JSON, or JSON nested deeper than MAX_JSON_DEPTH, answers 422.
 *
 * @example
 * const body = await readJsonBody(req, { limitBytes: 1 << 20, deadlineMs: 30_000 });
 */
export async function readJsonBody(req: MaybeParsedRequest, options: ReadBodyOptions): Promise<unknown> {
  const now = readJsonBodyNow(req, options);
  return now !== BODY_NOT_READ ? now : parseJson(await readRaw(req, options), options.limitBytes);
}

/** readJsonBodyNow's answer for a body still to be read (`null` is a body: the JSON text `null`). */
export const BODY_NOT_READ: unique symbol = Symbol('tollgate.bodyNotRead');

export interface ReadBodyOptions {
  limitBytes: number;
  deadlineMs?: number;
  parsed?: unknown;
  /** The organization's upload slots: a body arriving over time holds one meanwhile (http/org-slots.ts). */
  uploads?: OrgSlot;
}

/**
 * readJsonBody without a promise when the body is at hand (a framework's parser read it, or Node's parser holds
 * all of it): its value, or its error thrown; BODY_NOT_READ when it is still to be read (then readJsonBody). The
 * gateway's hot path saves a promise and a turn per request with it (issue 19).
 *
 * @example
 * const now = readJsonBodyNow(req, options);
 * const raw = now !== BODY_NOT_READ ? now : await readJsonBody(req, options);
 */
export function readJsonBodyNow(req: MaybeParsedRequest, options: ReadBodyOptions): unknown {
  const preParsed = options.parsed !== undefined ? options.parsed : req.body;
  if (preParsed !== undefined && (req.readableEnded || !isEmptyParse(preParsed))) {
    // The limit holds for a body a parser in front read too (its own limit is the host's, usually larger): by the
    // size the request declared, which that parser read in full.
    if (Number(req.headers['content-length']) > options.limitBytes) throw tooLarge(options.limitBytes);
    if (typeof preParsed === 'string' || Buffer.isBuffer(preParsed)) return parseJson(Buffer.from(preParsed), options.limitBytes);
    // A framework's parser has no depth bound: the same one applies here as to a body read below.
    if (jsonDepthExceeds(preParsed, MAX_JSON_DEPTH)) throw tooDeep();
    return preParsed;
  }
  const buffered = bufferedBody(req);
  return buffered === undefined ? BODY_NOT_READ : parseJson(buffered, options.limitBytes);
}

/**
 * The whole body, when Node's parser already holds it: a small body arrives with its headers and is buffered
 * before the handler reads it (every byte its Content-Length declares; `req.complete` turns true only later).
 * One read() of the buffer then, instead of a promise, three listeners and the stream's flowing events
 * (issue 19); undefined when any of it is still to come, already taken, or not sized (chunked).
 */
function bufferedBody(req: IncomingMessage): Buffer | undefined {
  const buffered = req.readableLength;
  if (buffered === 0 || req.readableFlowing !== null || req.readableEncoding !== null || Number(req.headers['content-length']) !== buffered) return undefined;
  const body = req.read() as Buffer | null;
  if (body === null) return undefined;
  // Its end is parsed a turn later (`req.complete` turns true then): flowing, the request emits 'end' as after
  // readRaw, which an error's answer waits for before it keeps the connection (tollgate.ts unreadBodyHeaders).
  req.resume();
  // As after readRaw: an error listener stays (an unheard error on a stream that is not node:http's would crash).
  req.on('error', ignoreLateError);
  return body;
}

/** A client gone after its body was read: its answer has nowhere to go, and the response's close says so. */
function ignoreLateError(): void {}

/** Express 5 leaves `req.body` undefined without a parser, but some parsers set `{}` on non-matching types. */
function isEmptyParse(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Buffer.isBuffer(value) && Object.keys(value).length === 0;
}

/**
 * Collects the body with three plain listeners: an async iterator over the request costs a few promises
 * and an end-of-stream watcher per request, a measurable share of a point select's time.
 */
function readRaw(req: IncomingMessage, { limitBytes, deadlineMs, uploads }: ReadBodyOptions): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) return Promise.reject(tooLarge(limitBytes));
  // A middleware in front read the body and left no `req.body`: its 'end' is past and will not come again.
  if (req.readableEnded) return Promise.reject(validationError(['body'], 'The request body was already read by a middleware in front of Tollgate, which left no parsed body (req.body)', null, 'json_invalid'));
  try {
    uploads?.take();
  } catch (refused) {
    return Promise.reject(refused);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    // A body that trickles or stalls would hold its buffers and its connection for as long as the client
    // likes (issue 15 item 6): past the deadline it answers 408 and the dispatcher closes the connection.
    const deadline = deadlineMs === undefined || req.complete ? undefined : setTimeout(() => finish(new ServiceError('body_timeout', `The request body did not arrive within ${deadlineMs} ms`)), deadlineMs);
    const finish = (error: Error | undefined, body?: Buffer) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      uploads?.give();
      // The listeners outlive the read (a streamed answer keeps its request open): they must not keep the raw bytes.
      chunks.length = 0;
      if (error) reject(error);
      else resolve(body!);
    };
    const onData = (chunk: Buffer) => {
      if (settled) return; // past the limit: the rest drains unread, so the 413 reaches the client
      size += chunk.length;
      if (size <= limitBytes) return void chunks.push(chunk);
      finish(tooLarge(limitBytes));
    };
    const onEnd = () => {
      // Nothing more can arrive: the data and end listeners go (the error one stays, an unheard error would crash).
      req.off('data', onData);
      req.off('end', onEnd);
      finish(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    // A client gone mid-body errors the request ('aborted'); its answer has nowhere to go.
    req.on('error', (error) => finish(new ServiceError('invalid_request', 'The client closed the connection before its request body arrived', { cause: error })));
    // A client gone mid-body without an error frees its upload slot at once, not at the body deadline.
    req.on('close', () => finish(new ServiceError('invalid_request', 'The client closed the connection before its request body arrived')));
  });
}

function parseJson(raw: Buffer, limitBytes: number): unknown {
  if (raw.length > limitBytes) throw tooLarge(limitBytes);
  const text = raw.toString('utf8');
  // Checked on the text, before parsing: a deep value overflows the stack of whatever walks it later
  // (the validator, the error's rendering).
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) throw tooDeep();
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.slice(0, 200) : 'invalid JSON';
    throw validationError(['body'], `Request body is not valid JSON: ${reason}`, text.slice(0, 200), 'json_invalid');
  }
}

function tooDeep(): ServiceError {
  return validationError(['body'], `Request body is nested deeper than ${MAX_JSON_DEPTH} levels`, null, 'json_too_deep');
}

function tooLarge(limitBytes: number): ServiceError {
  return new ServiceError('request_too_large', `Request body exceeds the limit of ${limitBytes} bytes`);
}
