import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Tokens in a text, counted with OpenAI's o200k_base encoding. Used to estimate prompts at admission
 * and to meter output when a provider reports no usage (a stream cut short, a server without usage).
 *
 * @example
 * countTokens('Hello, world!') // 4
 */
export function countTokens(text: string): number {
  return text.length === 0 ? 0 : countO200k(text);
}

/** Estimated prompt tokens of a request body: every string in it, plus a small per-message overhead. */
export function estimateInputTokens(body: unknown): number {
  let strings = '';
  let messages = 0;
  const walk = (node: unknown, key: string | undefined): void => {
    if (typeof node === 'string') {
      // Base64 images are billed by the provider per image, not per character; don't let them dominate.
      if (key !== 'model' && !node.startsWith('data:') && key !== 'data') strings += `${node}\n`;
    } else if (Array.isArray(node)) {
      for (const item of node) walk(item, key);
      if (key === 'messages') messages += node.length;
    } else if (node !== null && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) walk(v, k);
    }
  };
  walk(body, undefined);
  return countTokens(strings) + 3 * messages;
}
