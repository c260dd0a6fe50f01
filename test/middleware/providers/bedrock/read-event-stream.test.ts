import assert from 'node:assert/strict';
import { EventStreamCodec } from '@smithy/core/event-streams';
import type { MessageHeaders } from '@smithy/types';
import { readEventStream } from '../../../../packages/middleware/src/providers/bedrock/read-event-stream.js';
import { UpstreamFailure } from '../../../../packages/middleware/src/upstream/index.js';

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);
const limits = { maxEventBytes: 4_096, maxStreamBytes: 65_536 };

function message(type: 'event' | 'exception' | 'error', name: string, payload: string): Buffer {
  const headers: MessageHeaders = { ':message-type': { type: 'string', value: type }, ':content-type': { type: 'string', value: 'application/json' } };
  if (type === 'event') headers[':event-type'] = { type: 'string', value: name };
  if (type === 'exception') headers[':exception-type'] = { type: 'string', value: name };
  if (type === 'error') Object.assign(headers, { ':error-code': { type: 'string', value: name }, ':error-message': { type: 'string', value: payload } });
  return Buffer.from(codec.encode({ headers, body: Buffer.from(payload, 'utf8') }));
}

async function* chunks(...parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield part;
}

async function read(body: AsyncIterable<Uint8Array>, secrets: readonly string[] = [], bounds = limits): Promise<{ event: string; data: string }[]> {
  const events: { event: string; data: string }[] = [];
  for await (const event of readEventStream(body, bounds, secrets)) events.push(event);
  return events;
}

async function failureOf(body: AsyncIterable<Uint8Array>, bounds = limits): Promise<UpstreamFailure> {
  try {
    await read(body, [], bounds);
  } catch (error) {
    assert.ok(error instanceof UpstreamFailure, `an UpstreamFailure, got ${String(error)}`);
    return error;
  }
  assert.fail('the stream was read without a failure');
}

const start = message('event', 'messageStart', '{"role":"assistant"}');
const delta = message('event', 'contentBlockDelta', '{"contentBlockIndex":0,"delta":{"text":"Hi"}}');
const stop = message('event', 'messageStop', '{"stopReason":"end_turn"}');

describe('readEventStream: the AWS event-stream framing of ConverseStream', () => {
  it('decodes each message to its :event-type and JSON payload, several per chunk', async () => {
    assert.deepEqual(await read(chunks(Buffer.concat([start, delta, stop]))), [
      { event: 'messageStart', data: '{"role":"assistant"}' },
      { event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":{"text":"Hi"}}' },
      { event: 'messageStop', data: '{"stopReason":"end_turn"}' },
    ]);
  });

  it('decodes the same events when the bytes arrive one at a time (a frame split anywhere, its prelude too)', async () => {
    const whole = Buffer.concat([start, delta, stop]);
    const oneByOne = [...whole].map((byte) => Uint8Array.of(byte));
    assert.deepEqual(await read(chunks(...oneByOne)), await read(chunks(whole)));
  });

  it('throws the status an in-stream exception has over HTTP: throttlingException → 429 ThrottlingException, with its message', async () => {
    const failure = await failureOf(chunks(start, message('exception', 'throttlingException', '{"message":"Too many tokens"}')));
    assert.deepEqual([failure.details.status, failure.details.code, failure.message, failure.transient], [429, 'ThrottlingException', 'Too many tokens', true]);
  });

  it('throws modelStreamErrorException as 424 (not retried) and an unknown exception as 500', async () => {
    const model = await failureOf(chunks(message('exception', 'modelStreamErrorException', '{"message":"model failed"}')));
    assert.deepEqual([model.details.status, model.transient], [424, false]);
    const unknown = await failureOf(chunks(message('exception', 'brandNewException', 'not json')));
    assert.deepEqual([unknown.details.status, unknown.details.code, unknown.details.body], [500, 'BrandNewException', 'not json']);
  });

  it('throws a :message-type error message with its :error-code and :error-message', async () => {
    const failure = await failureOf(chunks(message('error', 'InternalFailure', 'the stream broke')));
    assert.deepEqual([failure.details.status, failure.details.code, failure.message], [500, 'InternalFailure', 'the stream broke']);
  });

  it('refuses a message whose CRC does not match, as an unreadable stream (no status: transient before output)', async () => {
    const corrupt = Buffer.from(delta);
    corrupt.writeUInt8(corrupt.readUInt8(corrupt.length - 6) ^ 0xff, corrupt.length - 6);
    const failure = await failureOf(chunks(start, corrupt));
    assert.equal(failure.details.status, undefined);
    assert.match(failure.message, /checksum/);
  });

  it('refuses a stream that ends inside a message', async () => {
    const failure = await failureOf(chunks(start, delta.subarray(0, 20)));
    assert.match(failure.message, /truncated message \(20 bytes/);
  });

  it('refuses a length prefix too small to be a message, or a headers length past the message', async () => {
    assert.match((await failureOf(chunks(Buffer.from([0, 0, 0, 8, 0, 0, 0, 0])))).message, /message length of 8 bytes/);
    const badHeaders = Buffer.from(start);
    badHeaders.writeUInt32BE(badHeaders.length, 4);
    assert.match((await failureOf(chunks(badHeaders))).message, /headers length past the message/);
  });

  it('refuses a message announced larger than the relay limit before buffering it', async () => {
    const prelude = Buffer.alloc(4);
    prelude.writeUInt32BE(2 ** 31, 0);
    const failure = await failureOf(chunks(prelude));
    assert.deepEqual([failure.details.exceeded, failure.transient], ['answer_size', false]);
  });

  it('refuses a stream larger than the relay limit', async () => {
    const failure = await failureOf(chunks(...Array.from({ length: 40 }, () => delta)), { maxEventBytes: 4_096, maxStreamBytes: delta.length * 10 });
    assert.equal(failure.details.exceeded, 'answer_size');
  });

  it('redacts the credentials the call carried from every payload', async () => {
    const echoed = message('event', 'contentBlockDelta', '{"contentBlockIndex":0,"delta":{"text":"key AKIAFAKE123"}}');
    const [event] = await read(chunks(echoed), ['AKIAFAKE123']);
    assert.doesNotMatch(event!.data, /AKIAFAKE123/);
  });
});
