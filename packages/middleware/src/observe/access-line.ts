import { microsToUsd } from '../policy/index.js';
import type { RequestObservation } from './request-observation.js';

/** One request, as its access log line tells it (README "Operating"). Never a key, only its id. */
export interface AccessLine {
  requestId: string;
  method: string;
  endpoint: string;
  status: number;
  /** The error kind that answered (`wallet_empty`, `rate_limited`…), or 'none'. */
  reason: string;
  org: string;
  keyId: string;
  alias: string;
  /** The route taken: the provider that answered (or was last tried) and its model. */
  provider: string;
  upstreamModel: string;
  stream: boolean;
  attempts: number;
  failovers: number;
  inputTokens: number;
  outputTokens: number;
  /** At the alias's list price. */
  costUsd: number;
  durationMs: number;
  /** -1 when no byte of a successful answer was sent. */
  firstByteMs: number;
  /** Time the policy store took to admit or refuse; -1 when it was not asked. */
  admitMs: number;
}

export function accessLineOf(observation: RequestObservation, method: string | undefined, status: number): AccessLine {
  return {
    requestId: observation.requestId,
    method: method ?? 'GET',
    endpoint: observation.endpoint,
    status,
    reason: observation.reason,
    org: observation.org,
    keyId: observation.keyId,
    alias: observation.alias,
    provider: observation.provider,
    upstreamModel: observation.upstreamModel,
    stream: observation.stream,
    attempts: observation.attempts,
    failovers: observation.failovers,
    inputTokens: observation.inputTokens,
    outputTokens: observation.outputTokens,
    costUsd: microsToUsd(observation.costMicros),
    durationMs: Math.round(observation.elapsedMs() * 1000) / 1000,
    firstByteMs: observation.firstByteMs < 0 ? -1 : Math.round(observation.firstByteMs * 1000) / 1000,
    admitMs: observation.admitMs < 0 ? -1 : Math.round(observation.admitMs * 1000) / 1000,
  };
}
