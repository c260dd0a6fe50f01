import type { Span } from '@opentelemetry/api';
import type { GatewayMetrics } from './gateway-metrics.js';

/** The label a request gets for a field it never reached (no key, no alias resolved, no upstream called). */
export const NONE = 'none';

/**
 * What one request did, filled in at the pipeline's seams and read once when it ends (metrics, the access
 * line, the span). Exists only when some observation is configured: with none, `ctx.observation` is
 * undefined and every seam is one optional-chaining check.
 */
export class RequestObservation {
  org = NONE;
  keyId = NONE;
  /** Only a catalog alias (bounded by the config): an unknown model name never reaches this field. */
  alias = NONE;
  provider = NONE;
  upstreamModel = NONE;
  /** The ServiceError kind that answered (catalog-bounded), or 'none'. */
  reason = NONE;
  stream = false;
  attempts = 0;
  failovers = 0;
  inputTokens = 0;
  outputTokens = 0;
  /** The part of `inputTokens` read from the provider's prompt cache. */
  cachedInputTokens = 0;
  costMicros = 0;
  /** Milliseconds from the request's start to its first response byte; -1 when none was sent. */
  firstByteMs = -1;
  /** Milliseconds the policy store took to admit (or refuse); -1 when not asked. */
  admitMs = -1;
  span: Span | undefined;

  constructor(
    readonly endpoint: string,
    readonly requestId: string,
    readonly startedAt: number,
    /** Set when metrics are on: seams that count as they go (attempts, open streams, slots) use it. */
    readonly metrics: GatewayMetrics | undefined,
  ) {}

  elapsedMs(): number {
    return performance.now() - this.startedAt;
  }

  /**
   * The caller, once its key is known: every authenticated request's access line and span name its organization
   * and key id, also when it is refused later (a bad body, a limit) or is no model call (SQL, the model list).
   */
  identify(caller: { org: string; keyId: string }): void {
    this.org = caller.org;
    this.keyId = caller.keyId;
  }

  markFirstByte(): void {
    if (this.firstByteMs < 0) this.firstByteMs = this.elapsedMs();
  }

  /** A pipeline step, as an event on the request's span (no-op without tracing). */
  step(name: string): void {
    this.span?.addEvent(name);
  }
}
