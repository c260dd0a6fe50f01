/**
 * The minimum strength of a configured `key` (issue 15 item 8). Keys are stored and logged only as
 * hashes and ids, so a strong key is what keeps a leaked state file or ledger from giving it back:
 * 32 characters of a random hex or base64 alphabet carry at least 128 bits. Length alone would let
 * `aaaa…` through, so a key must also use at least 8 different characters (a random 32-character key
 * from any such alphabet virtually always does). Keys made by `tollgate admin keys create` (and the
 * development key) carry 192 bits. A `sha256` entry cannot be checked: its operator vouches for it.
 */
export const MIN_KEY_LENGTH = 32;
export const MIN_KEY_DISTINCT_CHARACTERS = 8;

/** Why a configured key is too weak, or undefined when it is strong enough. */
export function keyStrengthProblem(key: string): string | undefined {
  // Presented as one word (`Bearer <key>`, a trimmed `x-api-key`): a key with whitespace could never be.
  if (/[\s\x00-\x1f\x7f]/.test(key)) return 'an API key is one word: no spaces, tabs, newlines or control characters (a newline left by the environment?); no request could ever present this one';
  if (key.length < MIN_KEY_LENGTH) return `an API key must be at least ${MIN_KEY_LENGTH} characters (128 bits of a random hex or base64 key); this one has ${key.length}`;
  if (new Set(key).size < MIN_KEY_DISTINCT_CHARACTERS) return `an API key must use at least ${MIN_KEY_DISTINCT_CHARACTERS} different characters; make one with \`tollgate admin keys create\` or \`openssl rand -hex 32\``;
  return undefined;
}
