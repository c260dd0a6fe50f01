import { z } from 'zod';

/** (Here, below config, so both config and upstream read it without a cycle between the folders.) The longest delay a Node timer keeps: a longer one fires after 1 ms (TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2_147_483_647;

/** A duration in ms that a timer enforces: a whole positive number no timer would cut to 1 ms. */
export function timerMs() {
  return z.number().int().positive().max(MAX_TIMER_MS, `at most ${MAX_TIMER_MS} ms (about 24.8 days), the longest delay a Node timer keeps`);
}

/** Bounds on relaying: what one provider answer and one slow client may cost (README "Relay limits"). */
const MIB = 1_048_576;
export const relayDefaults = { maxAnswerBytes: 32 * MIB, maxStreamBytes: 256 * MIB, attemptDeadlineMs: 1_800_000, maxPausedStreamMs: 30_000, connections: 256, http2: false };

export const relaySettings = z
  .object({
    /** Largest JSON answer (or error body) read from a provider, and largest single event of a stream. */
    maxAnswerBytes: z.number().int().positive().max(512 * MIB).default(relayDefaults.maxAnswerBytes),
    /** Largest whole stream read from a provider. */
    maxStreamBytes: z.number().int().positive().default(relayDefaults.maxStreamBytes),
    /** Overall time one upstream attempt may take, headers and body; `providers.*.timeoutMs` bounds idle time only. */
    attemptDeadlineMs: timerMs().default(relayDefaults.attemptDeadlineMs),
    /** How long a relayed stream may wait for a client that does not read before it ends as a failed stream. */
    maxPausedStreamMs: timerMs().default(relayDefaults.maxPausedStreamMs),
    /** Upstream connections per provider origin. */
    connections: z.number().int().positive().default(relayDefaults.connections),
    /**
     * Multiplex upstream calls over HTTP/2 (up to 100 streams a connection): one socket per client stream
     * instead of two. Every provider origin must then speak HTTP/2 (https by ALPN, http as h2c).
     */
    http2: z.boolean().default(relayDefaults.http2),
  })
  .strict();

export type RelayConfig = z.output<typeof relaySettings>;
