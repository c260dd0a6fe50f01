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
