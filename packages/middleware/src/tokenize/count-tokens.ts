import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Tokens in a text, counted with OpenAI's o200k_base encoding. Used to estimate prompts at admission
 * and to meter output when a provider reports no usage (a stream cut short, a server without usage).
 *
 * @example
 * countTokens('Hello, world!') // 4
 */
export function countTokens(text: string): number {
  return text.length === 0 ? 0 : countO200k(text, AS_TEXT);
}

/**
 * Special tokens spelled in a prompt or an answer (`<|endoftext|>`) are counted as the text they are: by
 * default the tokenizer throws on them, which made such a prompt a 500, and it scanned every text for them.
 */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Estimated prompt tokens of a request body: every string in it, plus a small per-message overhead. */
export function estimateInputTokens(body: unknown): number {
  const prompt: Prompt = { text: '', messages: 0 };
  collect(body, undefined, prompt);
  return countTokens(prompt.text) + 3 * prompt.messages;
}

interface Prompt {
  text: string;
  messages: number;
}

/** A plain recursive walk (no closure or entry arrays per call: it runs for every priced request). */
function collect(node: unknown, key: string | undefined, prompt: Prompt): void {
  if (typeof node === 'string') {
    // Base64 images are billed by the provider per image, not per character; don't let them dominate.
    if (key !== 'model' && key !== 'data' && !node.startsWith('data:')) prompt.text += `${node}\n`;
  } else if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) collect(node[i], key, prompt);
    if (key === 'messages') prompt.messages += node.length;
  } else if (node !== null && typeof node === 'object') {
    for (const k in node) collect((node as Record<string, unknown>)[k], k, prompt);
  }
}
