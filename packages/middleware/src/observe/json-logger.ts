import { pino, type DestinationStream } from 'pino';
import type { Logger } from '../logger.js';
import type { AccessLine } from './access-line.js';

/**
 * A JSON-lines logger through pino: operational messages and one `access` line per request, each a
 * single JSON object (`tollgate serve --log-format json`). Headers that could carry keys are redacted
 * by path as well, for errors that carry a request.
 *
 * @example
 * tollgate(config, { logger: jsonLogger() })
 */
export function jsonLogger(destination?: DestinationStream): Logger {
  const log = pino(
    {
      base: { service: 'tollgate' },
      redact: { paths: ['*.headers.authorization', '*.headers["x-api-key"]', '*.headers["x-goog-api-key"]', 'headers.authorization', 'headers["x-api-key"]'], censor: '[redacted]' },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
  return {
    info: (message) => log.info(message),
    error: (message, error) => log.error({ err: error }, message),
    access: (line: AccessLine) => log.info({ access: line }, 'request'),
  };
}

/** Human-readable lines on the console, with a short access line per request (`--log-format pretty`). */
export function prettyLogger(): Logger {
  return {
    info: (message) => console.log(`[tollgate] ${message}`),
    error: (message, error) => console.error(`[tollgate] ${message}`, error ?? ''),
    access: (line) =>
      console.log(`[tollgate] ${line.requestId} ${line.method} ${line.endpoint} ${line.status}${line.reason === 'none' ? '' : ` ${line.reason}`} org=${line.org} key=${line.keyId} alias=${line.alias} via=${line.provider} tokens=${line.inputTokens}/${line.outputTokens} cost=$${line.costUsd} ${line.durationMs}ms`),
  };
}
