/**
 * A `Retry-After` value in seconds from now: delta-seconds, or an HTTP-date (RFC 9110 §10.2.3, as proxies send
 * it); undefined when it is neither.
 */
export function retryAfterSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (value.trim() !== '' && Number.isFinite(seconds)) return seconds;
  const date = Date.parse(value);
  return Number.isFinite(date) ? (date - Date.now()) / 1000 : undefined;
}
