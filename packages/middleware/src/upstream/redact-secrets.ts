import type { IncomingHttpHeaders } from 'node:http';

/** What a redacted credential reads as in a relayed message or body. */
export const REDACTED = '[redacted]';

/** Headers Tollgate sends upstream that carry no secret; every other value (credentials, configured extras) is one. */
const notSecret = new Set(['content-type', 'accept', 'anthropic-version', 'anthropic-beta']);

/** Shorter values cannot be told from ordinary words, and no credential is that short. */
const MIN_SECRET_LENGTH = 6;

const secretsOf = new WeakMap<Readonly<Record<string, string>>, readonly string[]>();

/**
 * The secrets in a call's upstream headers: the API key (also without its `Bearer ` scheme) and every
 * configured header value, each also as it appears inside a JSON string (escaped) when that differs, so a
 * JSON body stays parseable after redaction. Remembered per headers object, which is built once per
 * provider: redaction runs on every answer and every stream event, and must not escape anything there.
 *
 * @example
 * upstreamSecrets({ authorization: 'Bearer sk-123456' }) // ['Bearer sk-123456', 'sk-123456']
 */
export function upstreamSecrets(headers: Readonly<Record<string, string>>): readonly string[] {
  let secrets = secretsOf.get(headers);
  if (!secrets) {
    const found = new Set<string>();
    for (const [name, value] of Object.entries(headers)) {
      if (notSecret.has(name.toLowerCase())) continue;
      const bare = value.replace(/^(Bearer|Basic|Token)\s+/i, '').trim();
      for (const candidate of [value.trim(), bare]) {
        if (candidate.length < MIN_SECRET_LENGTH) continue;
        found.add(candidate);
        found.add(JSON.stringify(candidate).slice(1, -1));
      }
    }
    // Longest first, so a key is not half-redacted inside the longer "Bearer <key>".
    secrets = [...found].sort((a, b) => b.length - a.length);
    secretsOf.set(headers, secrets);
  }
  return secrets;
}

/**
 * Text from a provider with every secret it was sent replaced by `[redacted]`: a provider or proxy that
 * echoes the credentials it received must not pass them on to a client (issue 15 item 3). `secrets` come
 * from upstreamSecrets (longest first, escaped forms included).
 *
 * @example
 * redactSecrets('bad key sk-123456', ['sk-123456']) // 'bad key [redacted]'
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) if (redacted.includes(secret)) redacted = redacted.split(secret).join(REDACTED);
  return redacted;
}

/**
 * An answer's headers with every secret redacted, in place (the object is the answer's own, parsed by undici): the
 * headers Tollgate passes on or reads (the provider's request id, relayed as `x-upstream-request-id` and written to
 * the ledger; AWS's `x-amzn-errortype`, relayed as the error's code) must not carry the credentials either. Nothing
 * is allocated unless a header holds one.
 *
 * @example
 * redactHeaders({ 'x-request-id': 'sk-123456' }, ['sk-123456']) // { 'x-request-id': '[redacted]' }
 */
export function redactHeaders(headers: IncomingHttpHeaders, secrets: readonly string[]): void {
  for (const name in headers) {
    const value = headers[name];
    if (typeof value === 'string') {
      if (holdsSecret(value, secrets)) headers[name] = redactSecrets(value, secrets);
    } else if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) if (holdsSecret(value[index]!, secrets)) value[index] = redactSecrets(value[index]!, secrets);
    }
  }
}

function holdsSecret(text: string, secrets: readonly string[]): boolean {
  for (const secret of secrets) if (text.includes(secret)) return true;
  return false;
}
