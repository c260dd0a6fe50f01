import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { TOKEN_COUNT_CACHE_BOUNDS, TokenCountCache } from './token-count-cache.js';

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

/** Prompt texts' counts, kept across requests (a process-wide cache: the counts depend on the text alone). */
const promptCounts = new TokenCountCache(TOKEN_COUNT_CACHE_BOUNDS);

/**
 * Estimated prompt tokens of a request body: every string in it, each followed by a newline, counted as one text,
 * plus a small per-message overhead. The count is summed over segments that the tokenizer can never join (see
 * startsSegment), each looked up in the cache: the sum is the count of the whole text, exactly.
 */
export function estimateInputTokens(body: unknown): number {
  const prompt: Prompt = { segment: undefined, tokens: 0, messages: 0 };
  collect(body, undefined, prompt);
  if (prompt.segment !== undefined) prompt.tokens += promptCounts.count(prompt.segment, countLine);
  return prompt.tokens + 3 * prompt.messages;
}

interface Prompt {
  /** The strings not yet counted, joined by newlines (without the last one's). */
  segment: string | undefined;
  tokens: number;
  messages: number;
}

/** A segment's text as the prompt has it: followed by its newline. */
function countLine(segment: string): number {
  return countTokens(`${segment}\n`);
}

/**
 * o200k's pre-tokenizer (gpt-tokenizer's O200K_TOKEN_SPLIT_REGEX) splits text into pieces before any merge; a piece
 * holding a string's closing newline goes on into the next string only through `\s*[\r\n]+` or the `[\r\n/]*`
 * tail of a punctuation run — only when that string is empty or starts with whitespace or `/`. Any other string
 * starts a piece of its own, so the texts before it and from it on count apart, and their counts add up.
 */
function startsSegment(text: string): boolean {
  if (text.length === 0) return false;
  const first = text.charCodeAt(0);
  return first !== SLASH && !WHITESPACE.test(text[0]!);
}

const SLASH = 0x2f;
const WHITESPACE = /\s/u;

function add(text: string, prompt: Prompt): void {
  if (prompt.segment === undefined) prompt.segment = text;
  else if (startsSegment(text)) {
    prompt.tokens += promptCounts.count(prompt.segment, countLine);
    prompt.segment = text;
  } else prompt.segment += `\n${text}`;
}

/** A plain recursive walk (no closure or entry arrays per call: it runs for every priced request). */
function collect(node: unknown, key: string | undefined, prompt: Prompt): void {
  if (typeof node === 'string') {
    // Base64 images are billed by the provider per image, not per character; don't let them dominate.
    if (key !== 'model' && key !== 'data' && !node.startsWith('data:')) add(node, prompt);
  } else if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) collect(node[i], key, prompt);
    if (key === 'messages') prompt.messages += node.length;
  } else if (node !== null && typeof node === 'object') {
    for (const k in node) collect((node as Record<string, unknown>)[k], k, prompt);
  }
}

/**
 * The prompt tokens of an embeddings request's `input` (OpenAI's forms): each text counted with o200k, each
 * token-id array by its length (those ids are the tokens). Not estimateInputTokens, which reads every string of
 * the body (`encoding_format`, `user`) and no number, so a token-id input counted as nothing.
 *
 * @example
 * embeddingInputTokens([[1, 2, 3], [4, 5]]) // 5
 */
export function embeddingInputTokens(input: unknown): number {
  if (typeof input === 'string') return countTokens(input);
  if (!Array.isArray(input)) return 0;
  let tokens = 0;
  for (const item of input) {
    if (typeof item === 'number') tokens += 1;
    else if (typeof item === 'string') tokens += countTokens(item);
    else if (Array.isArray(item)) tokens += item.length;
  }
  return tokens;
}
