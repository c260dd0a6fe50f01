import assert from 'node:assert/strict';
import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { countTokens, embeddingInputTokens, embeddingInputTokensInTurns, estimateInputTokens, estimateInputTokensInTurns } from '../../../packages/middleware/src/tokenize/index.js';
import { LONG_PIECE, spansToCount } from '../../../packages/middleware/src/tokenize/spans.js';

/** gpt-tokenizer's own count of the whole text, special tokens counted as text (as Tollgate does). */
function exactCount(text: string): number {
  return o200kCount(text, { disallowedSpecial: new Set<string>() });
}

/** The longest piece o200k's pre-split makes of the text: only longer than LONG_PIECE is a count not exact. */
function longestPiece(text: string): number {
  let longest = 0;
  for (const [piece] of text.matchAll(O200K_TOKEN_SPLIT_REGEX)) longest = Math.max(longest, piece.length);
  return longest;
}

/** A seeded generator, so a failure names a text that can be replayed. */
function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomChars(random: () => number, length: number, from: number, span: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += String.fromCharCode(from + Math.floor(random() * span));
  return text;
}

/** Kinds of text a prompt holds, each made of pieces shorter than LONG_PIECE. */
const KINDS = [
  'The quick brown fox jumps over the lazy dog. It was the best of times, it was the worst of times; ',
  'function add(a: number, b: number): number {\n  return a + b; // sum\n}\n\n',
  '{"id": 1234567, "name": "Zoë", "tags": ["a", "b"], "nested": {"ok": true, "value": -3.25e10}}\n',
  'https://example.com/path/to/resource?query=value&other=123#fragment /usr/local/bin ',
  '日本語のテキストです。中文文本，包括标点符号！한국어 문장입니다. ',
  'Emoji 😀🎉👍🏽 and flags 🇫🇷🇯🇵, ZWJ 👩‍👩‍👧 family. ',
  '   \t\t  \n\n\r\n      \u00a0\u2028 ',
  '3.14159265358979 1,000,000 2024-06-01 0x1F 42 ',
  'spelled <|endoftext|> and <|im_start|>user in text ',
  "I'm sure they're here, we'll see, it's DONE'S. ",
  'CamelCaseIdentifiers and SCREAMING_SNAKE_CASE_NAMES_ONLY. ',
];

function mixedText(random: () => number, minLength: number): string {
  let text = '';
  while (text.length < minLength) text += KINDS[Math.floor(random() * KINDS.length)]!;
  return text;
}

describe('counting long prompts', function () {
  this.timeout(20_000);

  it("counts every text without a piece over 256 characters exactly as gpt-tokenizer counts it whole", function () {
    const random = mulberry32(256);
    // Just over LONG_PIECE (the first size with a pass of our own), and longer ones.
    for (const length of [LONG_PIECE + 1, LONG_PIECE + 2, 300, 1_000, 5_000, 40_000]) {
      for (let i = 0; i < 20; i++) {
        const text = mixedText(random, length);
        assert.ok(longestPiece(text) <= LONG_PIECE, 'the test text must hold no long piece');
        assert.equal(countTokens(text), exactCount(text), JSON.stringify(text.slice(0, 200)));
      }
    }
    // Runs of whitespace, digits and punctuation right up to LONG_PIECE, and one text of each kind alone.
    for (const text of [' '.repeat(LONG_PIECE), `a${' '.repeat(LONG_PIECE - 1)}b`, '1'.repeat(LONG_PIECE + 100), `${'!'.repeat(LONG_PIECE)}x`, ...KINDS.map((kind) => kind.repeat(10))]) {
      assert.ok(longestPiece(text) <= LONG_PIECE);
      assert.equal(countTokens(text), exactCount(text), JSON.stringify(text.slice(0, 80)));
    }
  });

  it('counts the rest of a text exactly around a long piece', function () {
    const random = mulberry32(7);
    const word = randomChars(random, 2_000, 0x61, 26);
    // A newline before the word and a space after it end the pieces there (a space before it would join the word).
    const before = `${mixedText(random, 3_000)}\n`;
    const after = ` ${mixedText(random, 3_000)}`;
    // The text's count is the long piece's (in slices) plus its neighbours', each exact.
    assert.equal(countTokens(`${before}${word}${after}`), exactCount(before) + countTokens(word) + exactCount(after));
  });

  it('counts a one-word text of 100,000 random letters within 1% of its exact count', function () {
    const text = randomChars(mulberry32(100), 100_000, 0x61, 26);
    // The exact count is quadratic (the bug): ~2.5 s at this length.
    const exact = exactCount(text);
    const started = performance.now();
    const counted = countTokens(text);
    const ms = performance.now() - started;
    assert.ok(Math.abs(counted - exact) <= exact / 100, `counted ${counted}, exactly ${exact}`);
    assert.ok(ms < 1_000, `took ${Math.round(ms)} ms`);
  });

  it('counts 16 Ki random CJK characters without punctuation (one piece) within 1% of its exact count', function () {
    const text = randomChars(mulberry32(16), 16 * 1024, 0x4e00, 20_000);
    const exact = exactCount(text);
    assert.ok(Math.abs(countTokens(text) - exact) <= exact / 100, `counted ${countTokens(text)}, exactly ${exact}`);
  });

  it('never cuts an emoji in half when it slices a long run of them', function () {
    // '!' first puts the slices' ends on high surrogates: each is moved back one character.
    for (const text of ['😀'.repeat(400), `!${'😀'.repeat(400)}`, `a${'🎉'.repeat(300)}`]) {
      const spans = [...spansToCount(text, Infinity)];
      assert.equal(spans.join(''), text);
      for (const span of spans) assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u.test(span), 'a span with half an emoji');
      const exact = exactCount(text);
      assert.ok(Math.abs(countTokens(text) - exact) <= spans.length, `counted ${countTokens(text)}, exactly ${exact}`);
    }
  });

  it('estimates a chat body in turns exactly as at once (system, messages, tools; long texts, long pieces)', async function () {
    const random = mulberry32(19);
    const bodies = [
      {
        model: 'm',
        system: 'You are a terse assistant.',
        messages: [
          { role: 'user', content: mixedText(random, 40_000) },
          { role: 'assistant', content: [{ type: 'text', text: ` ${mixedText(random, 20_000)}` }, { type: 'text', text: '/continued' }] },
          { role: 'user', content: `${'x'.repeat(70_000)} and ${randomChars(random, 30_000, 0x4e00, 20_000)}。` },
          { role: 'user', content: '' },
        ],
        tools: [{ type: 'function', function: { name: 'lookup', description: mixedText(random, 2_000), parameters: { type: 'object', properties: { q: { type: 'string', description: 'the query' } } } } }],
      },
      // Strings that join the segment before them (whitespace or '/' first), one of them long.
      { model: 'm', messages: [{ role: 'user', content: 'a' }, { role: 'user', content: `\n${mixedText(random, 50_000)}` }, { role: ' user', content: '/x' }] },
      { model: 'm', messages: [] },
    ];
    for (const body of bodies) {
      const inTurns = await estimateInputTokensInTurns(body);
      assert.equal(inTurns, estimateInputTokens(body));
      // Again, with every short segment now in the cache.
      assert.equal(await estimateInputTokensInTurns(body), inTurns);
    }
  });

  it('counts an embeddings input in turns exactly as at once (strings, token ids, mixed arrays)', async function () {
    const random = mulberry32(3);
    const long = mixedText(random, 60_000);
    for (const input of [long, ['short', long, `${'y'.repeat(20_000)}z`], [1, 2, 3], [[1, 2], [3]], ['a', 5, [6, 7], long], '', [], { not: 'an input' }, undefined]) {
      assert.equal(await embeddingInputTokensInTurns(input), embeddingInputTokens(input), String(JSON.stringify(input)).slice(0, 80));
    }
  });

  it('lets other callbacks run while it counts a large prompt in turns', async function () {
    const body = { model: 'm', messages: [{ role: 'user', content: randomChars(mulberry32(5), 256 * 1024, 0x61, 26) }] };
    let turnsGiven = 0;
    const ticks = setInterval(() => turnsGiven++, 0);
    try {
      await estimateInputTokensInTurns(body);
    } finally {
      clearInterval(ticks);
    }
    assert.ok(turnsGiven >= 5, `${turnsGiven} timer callbacks ran while 256 Ki characters were counted`);
  });
});
