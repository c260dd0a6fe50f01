/** Where a `${NAME}` reference named an unset variable: the JSON path and the variable. */
export interface UnsetReference {
  path: (string | number)[];
  variable: string;
}

const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces `${NAME}` in every string of a config with the environment's value, without mutating the
 * input. Strings that reference an unset variable become `undefined` and are reported, so the caller
 * decides what that means (a provider is disabled; anything else is a start-up error).
 *
 * @example
 * interpolateEnv({ apiKey: '${OPENAI_API_KEY}' }, process.env)
 * // → { value: { apiKey: 'sk-…' }, unset: [] }
 */
export function interpolateEnv(input: unknown, env: NodeJS.ProcessEnv): { value: unknown; unset: UnsetReference[] } {
  const unset: UnsetReference[] = [];
  const walk = (node: unknown, path: (string | number)[]): unknown => {
    if (typeof node === 'string') return substitute(node, path);
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...path, index]));
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item, [...path, key])]));
    }
    return node;
  };
  const substitute = (text: string, path: (string | number)[]): string | undefined => {
    let missing = false;
    const result = text.replace(reference, (_, name: string) => {
      const value = env[name];
      if (value === undefined || value === '') {
        unset.push({ path, variable: name });
        missing = true;
        return '';
      }
      return value;
    });
    return missing ? undefined : result;
  };
  return { value: walk(input, []), unset };
}
