export { Observer } from './observer.js';
export { RequestObservation, NONE } from './request-observation.js';
export { GatewayMetrics } from './gateway-metrics.js';
export { serveMetrics } from './metrics-endpoint.js';
export { inUpstreamSpan } from './request-tracing.js';
export { redactingLogger, secretsOf } from './secret-redaction.js';
export { jsonLogger, prettyLogger } from './json-logger.js';
export type { AccessLine } from './access-line.js';
