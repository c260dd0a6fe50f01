import type { ResolvedConfig } from '../config/index.js';
import type { Logger } from '../logger.js';

const REDACTED = '[redacted]';

/** Every secret the configuration holds: API keys, provider keys and headers, the metrics token. */
export function secretsOf(config: ResolvedConfig): string[] {
  const secrets: string[] = [];
  for (const key of config.keys) if (key.key) secrets.push(key.key);
  for (const provider of Object.values(config.providers)) {
    if (provider.apiKey) secrets.push(provider.apiKey);
    secrets.push(...Object.values(provider.headers));
  }
  if (config.metrics && config.metrics.auth !== 'none') secrets.push(config.metrics.auth.bearer);
  // Very short values (a header like "1") would shred every message: only values that can be secrets.
  return [...new Set(secrets.filter((secret) => secret.length >= 8))];
}

/**
 * Wraps the host's logger so that no configured secret reaches it, whatever an error message or a
 * provider's error body echoed: messages and errors are scrubbed before they leave Tollgate. Access lines
 * carry only key ids by construction and pass through untouched (they are per request: no scanning there).
 */
export function redactingLogger(inner: Logger, secrets: readonly string[]): Logger {
  const scrub = (text: string): string => {
    let clean = text;
    for (const secret of secrets) if (clean.includes(secret)) clean = clean.split(secret).join(REDACTED);
    return clean;
  };
  const scrubError = (error: unknown): unknown => {
    if (error === undefined) return undefined;
    if (!(error instanceof Error)) return scrub(typeof error === 'string' ? error : safeJson(error));
    const clean = new Error(scrub(error.message));
    clean.name = error.name;
    clean.stack = scrub(error.stack ?? '');
    if (error.cause !== undefined) clean.cause = scrubError(error.cause);
    return clean;
  };
  const logger: Logger = {
    info: (message) => inner.info(scrub(message)),
    error: (message, error) => inner.error(scrub(message), scrubError(error)),
  };
  if (inner.access) logger.access = inner.access.bind(inner);
  return logger;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
