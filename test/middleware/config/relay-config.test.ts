import assert from 'node:assert/strict';
import { ConfigError, parseConfig } from '../../../packages/middleware/src/config/index.js';

const MIB = 1_048_576;

describe('relay config', () => {
  it('defaults to 32 MiB answers, 256 MiB streams, a 30-minute attempt deadline, 30 s of pause, 256 connections and HTTP/1.1', () => {
    assert.deepEqual(parseConfig({}, {}).config.relay, { maxAnswerBytes: 32 * MIB, maxStreamBytes: 256 * MIB, attemptDeadlineMs: 1_800_000, maxPausedStreamMs: 30_000, connections: 256, http2: false });
  });

  it('refuses an http2 that is not a boolean, naming it', () => {
    assert.throws(
      () => parseConfig({ relay: { http2: 'yes' } }, {}),
      (error: unknown) => error instanceof ConfigError && /relay\.http2/.test(error.message),
    );
  });

  it('keeps the defaults of the fields a config leaves out', () => {
    assert.deepEqual(parseConfig({ relay: { maxPausedStreamMs: 500 } }, {}).config.relay.maxAnswerBytes, 32 * MIB);
  });

  it('refuses a non-positive bound, an unknown field and an answer limit past 512 MiB, naming each', () => {
    assert.throws(
      () => parseConfig({ relay: { attemptDeadlineMs: 0, maxAnswerBytes: 1024 * MIB, pausedMs: 1 } }, {}),
      (error: unknown) => error instanceof ConfigError && /relay\.attemptDeadlineMs/.test(error.message) && /relay\.maxAnswerBytes/.test(error.message) && /pausedMs/.test(error.message),
    );
  });
});
