import { createHash, createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EventStreamCodec } from '@smithy/core/event-streams';
import type { MessageHeaders } from '@smithy/types';
import { FakeServer, countWords, echoReply, textOfMessages, type FakeContext } from './fake-server.js';

/** The credentials the fake knows: a request signed with any other secret is refused like AWS refuses it. */
export const FAKE_BEDROCK_CREDENTIALS = { accessKeyId: 'AKIAFAKEBEDROCK00001', secretAccessKey: 'fake/bedrock/secret/0123456789abcdefABCDEF' } as const;
export const FAKE_BEDROCK_REGION = 'us-east-1';
/** A Bedrock API key the fake accepts as a bearer token instead of a signature. */
export const FAKE_BEDROCK_API_KEY = 'ABSKfakebedrockapikey0123456789abcdef';

/** Error types by the status the fake's failNext is given, as Bedrock Runtime names them (x-amzn-errortype). */
const errorTypes: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

/** How a ConverseStream of the fake goes wrong after `afterEvents` whole events. */
export type StreamFault =
  /** An in-stream exception message (`:message-type: exception`), as Bedrock sends throttling or model errors. */
  | { kind: 'exception'; type: string; message: string; afterEvents: number }
  /** Half of the next message, then a clean end of the HTTP body: a truncated frame. */
  | { kind: 'truncated'; afterEvents: number }
  /** The next message with its message CRC flipped. */
  | { kind: 'bad-crc'; afterEvents: number };

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);

let sequence = 0;

/**
 * A fake Bedrock Runtime: `POST /model/{modelId}/converse` and `/converse-stream`, answering in the real
 * wire format — JSON for Converse, the AWS event-stream binary framing (length prelude, typed headers,
 * two CRC32s) for ConverseStream: messageStart, contentBlockStart (toolUse), contentBlockDelta (text,
 * toolUse input), contentBlockStop, messageStop, metadata (usage, metrics); each payload padded with a `p`
 * field as AWS pads them. It VERIFIES every request's SigV4 signature against its known secret, computed
 * here independently of the gateway's signer (AWS's canonical-request algorithm): a wrong secret gets 403
 * `InvalidSignatureException`, an unknown key id 403 `UnrecognizedClientException`; a bearer token must be
 * FAKE_BEDROCK_API_KEY (Bedrock API keys). Errors carry AWS's
 * `{message}` body and `x-amzn-errortype` header.
 *
 * @example
 * const bedrock = await startFakeBedrock();        // baseUrl http://127.0.0.1:PORT
 * bedrock.failStream({ kind: 'exception', type: 'throttlingException', message: 'Too many tokens', afterEvents: 0 });
 */
export async function startFakeBedrock(): Promise<FakeBedrock> {
  return new FakeBedrock().start();
}

export class FakeBedrock extends FakeServer {
  #fault: StreamFault | undefined;

  constructor() {
    super((ctx) => route(ctx), '', (_status, message) => ({ message }), 'x-amzn-requestid');
  }

  /** Every following ConverseStream fails this way (undefined: streams are whole again). */
  failStream(fault: StreamFault | undefined): void {
    this.#fault = fault;
  }

  get streamFault(): StreamFault | undefined {
    return this.#fault;
  }

  /** AWS's error answer: `{message}` with the type in `x-amzn-errortype`. */
  override sendError(res: ServerResponse, status: number, message: string, type = errorTypes[status] ?? 'InternalServerException'): void {
    const body = JSON.stringify({ message });
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` });
    res.end(body);
  }
}

function route(ctx: FakeContext): void {
  const fake = ctx.fake as FakeBedrock;
  const refusal = ctx.req.headers.authorization?.startsWith('Bearer ') ? apiKeyProblem(ctx.req.headers.authorization) : signatureProblem(ctx.req, ctx.raw);
  if (refusal) return fake.sendError(ctx.res, 403, refusal.message, refusal.type);
  // The model id is one path segment, percent-encoded by the client (`anthropic.claude-…-v1%3A0`).
  const match = /^\/model\/([^/]+)\/(converse|converse-stream)$/.exec(ctx.url.pathname);
  if (ctx.req.method !== 'POST' || !match) return fake.sendError(ctx.res, 404, `Unknown operation ${ctx.url.pathname}`, 'UnknownOperationException');
  const problem = validationProblem(ctx.body);
  if (problem) return fake.sendError(ctx.res, 400, problem);
  converse(ctx, fake, match[2] === 'converse-stream');
}

/** What Bedrock's validation rejects that Tollgate could get wrong. */
function validationProblem(body: any): string | undefined {
  if (!Array.isArray(body?.messages) || body.messages.length === 0) return 'A conversation must start with a user message.';
  for (const [index, message] of (body.messages as { role: string; content: unknown[] }[]).entries()) {
    if (index > 0 && body.messages[index - 1].role === message.role) return 'A conversation must alternate between user and assistant roles.';
    if (!Array.isArray(message.content) || message.content.length === 0) return `messages.${index}.content: must not be empty`;
    for (const block of message.content as Record<string, unknown>[]) if (block.text === '') return 'The text field in the ContentBlock object is blank.';
  }
  if (body.inferenceConfig?.maxTokens !== undefined && !(Number.isInteger(body.inferenceConfig.maxTokens) && body.inferenceConfig.maxTokens >= 1)) return 'inferenceConfig.maxTokens: must be at least 1';
  return undefined;
}

function converse(ctx: FakeContext, fake: FakeBedrock, stream: boolean): void {
  const { body } = ctx;
  const history = body.messages as { role: string; content: Record<string, unknown>[] }[];
  const lastUser = [...history].reverse().find((m) => m.role === 'user');
  const text = fake.reply_.text ?? echoReply(textOfMessages(lastUser ? [lastUser.content] : []));
  const calls = (fake.reply_.toolCalls ?? []).map((call) => ({ toolUseId: `tooluse_fake${++sequence}`, name: call.name, input: call.arguments }));
  // Bedrock counts cache reads and writes beside inputTokens, which then holds only the rest of the prompt.
  const cacheRead = fake.reply_.cachedTokens ?? 0;
  const cacheWrite = fake.reply_.cacheWriteTokens ?? 0;
  const inputTokens = Math.max(0, countWords(textOfMessages(history.map((m) => m.content), body.system)) - cacheRead - cacheWrite);
  const outputTokens = countWords(calls.length > 0 ? calls.map((c) => JSON.stringify(c.input)).join(' ') : text);
  const usage = fake.usageWith({ inputTokens, outputTokens, totalTokens: inputTokens + outputTokens + cacheRead + cacheWrite, ...(cacheRead ? { cacheReadInputTokens: cacheRead } : {}), ...(cacheWrite ? { cacheWriteInputTokens: cacheWrite } : {}) });
  const stopReason = calls.length > 0 ? 'tool_use' : 'end_turn';
  const content = calls.length > 0 ? calls.map((toolUse) => ({ toolUse })) : [{ text }];
  if (!stream) {
    const answer = fake.serialize({ output: { message: { role: 'assistant', content } }, stopReason, usage, metrics: { latencyMs: 42 } });
    ctx.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
    ctx.res.end(answer);
    return;
  }
  const events: [string, Record<string, unknown>][] = [['messageStart', { role: 'assistant' }]];
  if (calls.length === 0) {
    for (const word of text.split(/(?<=\s)/)) events.push(['contentBlockDelta', { contentBlockIndex: 0, delta: { text: word } }]);
    events.push(['contentBlockStop', { contentBlockIndex: 0 }]);
  }
  calls.forEach((call, contentBlockIndex) => {
    const input = JSON.stringify(call.input);
    const half = Math.floor(input.length / 2);
    events.push(['contentBlockStart', { contentBlockIndex, start: { toolUse: { toolUseId: call.toolUseId, name: call.name } } }]);
    events.push(['contentBlockDelta', { contentBlockIndex, delta: { toolUse: { input: input.slice(0, half) } } }]);
    events.push(['contentBlockDelta', { contentBlockIndex, delta: { toolUse: { input: input.slice(half) } } }]);
    events.push(['contentBlockStop', { contentBlockIndex }]);
  });
  events.push(['messageStop', { stopReason }]);
  events.push(['metadata', { usage, metrics: { latencyMs: 42 } }]);
  sendEventStream(ctx.res, fake, events);
}

function sendEventStream(res: ServerResponse, fake: FakeBedrock, events: [string, Record<string, unknown>][]): void {
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json' });
  const fault = fake.streamFault;
  const dropAfter = fake.dropAfter;
  for (const [index, [type, payload]] of events.entries()) {
    if (dropAfter !== undefined && index >= dropAfter) {
      // Let the messages already written reach the peer first, as on a real connection that dies mid-stream.
      const socket = res.socket;
      setTimeout(() => socket?.destroy(), 30);
      return;
    }
    if (fault && index === fault.afterEvents) return void res.end(faultBytes(fault, type, payload));
    res.write(eventMessage(type, fake.serialize({ ...payload, p: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ'.slice(0, 1 + (index % 30)) })));
  }
  res.end();
}

function eventMessage(type: string, json: string): Uint8Array {
  const headers: MessageHeaders = {
    ':event-type': { type: 'string', value: type },
    ':content-type': { type: 'string', value: 'application/json' },
    ':message-type': { type: 'string', value: 'event' },
  };
  return codec.encode({ headers, body: Buffer.from(json, 'utf8') });
}

function faultBytes(fault: StreamFault, type: string, payload: Record<string, unknown>): Uint8Array {
  if (fault.kind === 'exception') {
    const headers: MessageHeaders = {
      ':exception-type': { type: 'string', value: fault.type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    };
    return codec.encode({ headers, body: Buffer.from(JSON.stringify({ message: fault.message }), 'utf8') });
  }
  const message = Buffer.from(eventMessage(type, JSON.stringify(payload)));
  if (fault.kind === 'truncated') return message.subarray(0, Math.floor(message.length / 2));
  message.writeUInt32BE(message.readUInt32BE(message.length - 4) ^ 0xffff, message.length - 4);
  return message;
}

/** Why AWS would refuse a Bedrock API key: any but the fake's. */
function apiKeyProblem(authorization: string): { type: string; message: string } | undefined {
  return authorization === `Bearer ${FAKE_BEDROCK_API_KEY}` ? undefined : { type: 'UnrecognizedClientException', message: 'Invalid API Key format: Must start with pre-defined prefix' };
}

/**
 * Why AWS would refuse the request's SigV4 signature, or undefined when it holds: the canonical request
 * (method, path with each segment encoded again, query, signed headers, the body's SHA-256), the string
 * to sign over the date, scope and that request's hash, and the HMAC chain from the known secret.
 */
function signatureProblem(req: IncomingMessage, raw: Buffer): { type: string; message: string } | undefined {
  const authorization = req.headers.authorization ?? '';
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!match) return { type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const [, keyId, day, region, service, signedHeaderList, signature] = match as unknown as string[];
  if (keyId !== FAKE_BEDROCK_CREDENTIALS.accessKeyId) return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  const signedHeaders = signedHeaderList!.split(';');
  const amzDate = req.headers['x-amz-date'];
  if (typeof amzDate !== 'string' || !signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) return { type: 'IncompleteSignatureException', message: 'Host and X-Amz-Date must be signed.' };
  if (region !== FAKE_BEDROCK_REGION || service !== 'bedrock' || !amzDate.startsWith(day!)) return { type: 'InvalidSignatureException', message: `Credential should be scoped to a valid region and service: ${region}/${service}` };
  const signedAt = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  if (!(Math.abs(Date.now() - signedAt) <= 5 * 60_000)) return { type: 'InvalidSignatureException', message: 'Signature expired: the request is more than 5 minutes old.' };
  const [rawPath = '/', query = ''] = (req.url ?? '/').split('?');
  const canonicalPath = rawPath.split('/').map((segment) => encodeRfc3986(segment)).join('/');
  const canonicalQuery = query.split('&').filter(Boolean).sort().join('&');
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${String(req.headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonicalRequest = [req.method, canonicalPath, canonicalQuery, canonicalHeaders, signedHeaderList, sha256(raw)].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(Buffer.from(canonicalRequest, 'utf8'))].join('\n');
  let key: Buffer = hmac(`AWS4${FAKE_BEDROCK_CREDENTIALS.secretAccessKey}`, day!);
  for (const part of [region!, service!, 'aws4_request']) key = hmac(key, part);
  const expected = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  if (expected !== signature) {
    return { type: 'InvalidSignatureException', message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.' };
  }
  return undefined;
}

function encodeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function hmac(key: string | Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text, 'utf8').digest();
}
