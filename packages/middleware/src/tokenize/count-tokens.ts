import { countTokens as countO200k, setMergeCacheSize } from 'gpt-tokenizer/encoding/o200k_base';
import { mediaTokensOf } from './media-tokens.js';
import { LONG_PIECE, spansToCount } from './spans.js';
import { TOKEN_COUNT_CACHE_BOUNDS, TokenCountCache } from './token-count-cache.js';
import { TURN_CHARS, Turns } from './turns.js';

/**
 * Tokens in a text, counted with OpenAI's o200k_base encoding. Used to estimate prompts at admission
 * and to meter output when a provider reports no usage (a stream cut short, a server without usage).
 * Exact, except for a pre-split piece longer than LONG_PIECE characters, counted in slices (see spans.ts).
 *
 * @example
 * countTokens('Hello, world!') // 4
 */
export function countTokens(text: string): number {
  // A short text (every prompt of the throughput benchmark, issue 19) in one call, without a pass of our own.
  if (text.length <= LONG_PIECE) return text.length === 0 ? 0 : countO200k(text, AS_TEXT);
  let tokens = 0;
  for (const span of spansToCount(text, Infinity)) tokens += countO200k(span, AS_TEXT);
  return tokens;
}

/**
 * countTokens(text): at once for a text of at most TURN_CHARS characters (every ordinary answer), else a promise of
 * it counted in turns of the event loop. For output metered by the tokenizer: a provider that streams megabytes
 * without a usable report (ignoring max_tokens, then cut) made one synchronous count of up to 256 MiB
 * (relay.maxStreamBytes), 11 s in which no other request of the process was served.
 *
 * @example
 * const tokens = countTokensSoon(text); if (typeof tokens !== 'number') await tokens;
 */
export function countTokensSoon(text: string): number | Promise<number> {
  return text.length <= TURN_CHARS ? countTokens(text) : countTokensInTurns(text, new Turns());
}

/**
 * countTokens(text), counted in turns of the event loop (turns.ts) so that other requests are served meanwhile:
 * the same spans, with runs also cut every TURN_CHARS characters at a piece boundary (which changes no count).
 */
async function countTokensInTurns(text: string, turns: Turns): Promise<number> {
  let tokens = 0;
  for (const span of spansToCount(text, TURN_CHARS)) {
    if (turns.due(span.length)) await turns.next();
    tokens += countO200k(span, AS_TEXT);
  }
  return tokens;
}

/**
 * gpt-tokenizer keeps the merges of up to 100,000 pieces (DEFAULT_MERGE_CACHE_SIZE), of any length: long random
 * pieces were kept whole. Pieces reach it at most LONG_PIECE characters long now, and 10,000 of them hold ~50 MiB at
 * worst (random CJK slices, ~2 tokens a character: measured; the default would be ~10 times that). A piece that is one
 * token never enters it, so common words stay cheap whatever it holds. The setting is the o200k module's own:
 * process-wide.
 */
setMergeCacheSize(10_000);

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
  const prompt: Prompt = { segment: undefined, tokens: 0, messages: 0, finished: undefined };
  collect(body, undefined, prompt);
  if (prompt.segment !== undefined) finish(prompt.segment, prompt);
  return prompt.tokens + 3 * prompt.messages;
}

/**
 * estimateInputTokens(body), exactly, counted in turns of the event loop: the same walk collects the same segments,
 * then each is counted, a short one through the same cache, a longer one in turns. For a body too large to count in
 * one turn (model-call.ts: countsInTurns, and the count_tokens endpoint).
 */
export async function estimateInputTokensInTurns(body: unknown): Promise<number> {
  const prompt: Prompt = { segment: undefined, tokens: 0, messages: 0, finished: [] };
  collect(body, undefined, prompt);
  if (prompt.segment !== undefined) finish(prompt.segment, prompt);
  const turns = new Turns();
  for (const segment of prompt.finished!) {
    // Through the cache as at once; a longer segment would not be kept (TOKEN_COUNT_CACHE_BOUNDS.maxKeyChars is TURN_CHARS too).
    if (segment.length <= TURN_CHARS) {
      if (turns.due(segment.length)) await turns.next();
      prompt.tokens += promptCounts.count(segment, countLine);
    } else prompt.tokens += await countTokensInTurns(`${segment}\n`, turns);
  }
  return prompt.tokens + 3 * prompt.messages;
}

interface Prompt {
  /** The strings not yet counted, joined by newlines (without the last one's). */
  segment: string | undefined;
  tokens: number;
  messages: number;
  /** Where finished segments go to be counted later, in turns; undefined: each is counted when it is finished. */
  finished: string[] | undefined;
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
    finish(prompt.segment, prompt);
    prompt.segment = text;
  } else prompt.segment += `\n${text}`;
}

function finish(segment: string, prompt: Prompt): void {
  if (prompt.finished === undefined) prompt.tokens += promptCounts.count(segment, countLine);
  else prompt.finished.push(segment);
}

/** A plain recursive walk (no closure or entry arrays per call: it runs for every priced request). */
function collect(node: unknown, key: string | undefined, prompt: Prompt): void {
  if (typeof node === 'string') {
    // Base64 images and files are billed by the provider per image or page (mediaTokensOf), not per character.
    if (key !== 'model' && key !== 'data' && !isDataUrl(node)) add(node, prompt);
  } else if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) collect(node[i], key, prompt);
    if (key === 'messages') prompt.messages += node.length;
  } else if (node !== null && typeof node === 'object') {
    prompt.tokens += mediaTokensOf(node);
    for (const k in node) collect((node as Record<string, unknown>)[k], k === 'data' && isTextSource(node) ? TEXT_DATA : k, prompt);
  }
}

/**
 * A data URL (`data:image/png;base64,…`: a media type without spaces, then a comma), not text that merely starts
 * with `data:` (an SSE log pasted into a prompt): that is prompt the provider bills, and the estimate a reservation,
 * a tokens-per-minute limit and a stream cut before its usage bill (README "What is billed").
 */
function isDataUrl(text: string): boolean {
  return text.startsWith('data:') && DATA_URL.test(text);
}

const DATA_URL = /^data:[^\s,]*,/;

/**
 * An Anthropic plain-text document's source (`{type: "text", media_type: "text/plain", data}`): its `data` is text the
 * provider reads as prompt, unlike a base64 source's.
 */
function isTextSource(node: object): boolean {
  return (node as { type?: unknown }).type === 'text';
}

/** The key a text source's `data` is walked under: counted like any other text. */
const TEXT_DATA = 'text';

/**
 * The prompt tokens of an embeddings request's `input` (OpenAI's forms): each text counted with o200k, each
 * token-id array by its length (those ids are the tokens). Not estimateInputTokens, which reads every string of
 * the body (`encoding_format`, `user`) and no number, so a token-id input counted as nothing.
 *
 * @example
 * embeddingInputTokens([[1, 2, 3], [4, 5]]) // 5
 */
export function embeddingInputTokens(input: unknown): number {
  return embeddingInput(input, undefined);
}

/** embeddingInputTokens(input), exactly, its texts counted in turns of the event loop (see estimateInputTokensInTurns). */
export async function embeddingInputTokensInTurns(input: unknown): Promise<number> {
  const texts: string[] = [];
  let tokens = embeddingInput(input, texts);
  const turns = new Turns();
  for (const text of texts) tokens += await countTokensInTurns(text, turns);
  return tokens;
}

/** The tokens of `input`'s token ids, plus its texts' counted now, or, given `texts`, kept there to be counted later. */
function embeddingInput(input: unknown, texts: string[] | undefined): number {
  if (typeof input === 'string') return embeddingText(input, texts);
  if (!Array.isArray(input)) return 0;
  let tokens = 0;
  for (const item of input) {
    if (typeof item === 'number') tokens += 1;
    else if (typeof item === 'string') tokens += embeddingText(item, texts);
    else if (Array.isArray(item)) tokens += item.length;
  }
  return tokens;
}

function embeddingText(text: string, texts: string[] | undefined): number {
  if (texts === undefined) return countTokens(text);
  texts.push(text);
  return 0;
}
