import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResolvedConfig } from '../config/index.js';
import type { Logger } from '../logger.js';
import { accessLineOf } from './access-line.js';
import { GatewayMetrics } from './gateway-metrics.js';
import { RequestObservation } from './request-observation.js';
import { endRequestSpan, startRequestSpan } from './request-tracing.js';

/**
 * Starts and finishes one RequestObservation per request for whichever of metrics, tracing and access
 * lines are configured. `Observer.create` returns undefined when none is: the dispatcher then does no
 * observation work at all.
 */
export class Observer {
  private constructor(
    readonly metrics: GatewayMetrics | undefined,
    private readonly tracing: boolean,
    private readonly logger: Logger,
  ) {}

  static create(config: ResolvedConfig, logger: Logger): Observer | undefined {
    if (!config.metrics && !config.tracing && !logger.access) return undefined;
    return new Observer(config.metrics ? new GatewayMetrics() : undefined, config.tracing, logger);
  }

  start(req: IncomingMessage, endpoint: string, requestId: string): RequestObservation {
    const observation = new RequestObservation(endpoint, requestId, performance.now(), this.metrics);
    if (this.tracing) observation.span = startRequestSpan(req.method, endpoint, requestId, req.headers);
    return observation;
  }

  /** Called once, after the handler returned or its error was answered. */
  finish(observation: RequestObservation, req: IncomingMessage, res: ServerResponse): void {
    // A stream broken after its headers still reports the status its headers said. A request answered with nothing
    // (its client left first: the call was cancelled) is not a 200: 499, nginx's "client closed request".
    const status = res.headersSent ? res.statusCode : CLIENT_CLOSED_REQUEST;
    this.metrics?.record(observation, status);
    if (observation.span) endRequestSpan(observation, status);
    this.logger.access?.(accessLineOf(observation, req.method, status));
  }
}

/** The status nginx logs for a request whose client closed the connection before any answer. */
const CLIENT_CLOSED_REQUEST = 499;
