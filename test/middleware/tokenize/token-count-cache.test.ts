import assert from 'node:assert/strict';
import { countTokens } from '../../../packages/middleware/src/tokenize/index.js';
import { TOKEN_COUNT_CACHE_BOUNDS, TokenCountCache } from '../../../packages/middleware/src/tokenize/token-count-cache.js';

/** countTokens, counting how often it really tokenized. */
function countingTokenizer(): { tokenize: (text: string) => number; calls: () => number } {
  let calls = 0;
  return {
    tokenize: (text) => {
      calls++;
      return countTokens(text);
    },
    calls: () => calls,
  };
}

describe('the token count cache', function () {
  it('tokenizes a text once and answers its count from then on', function () {
    const cache = new TokenCountCache(TOKEN_COUNT_CACHE_BOUNDS);
    const { tokenize, calls } = countingTokenizer();
    const text = 'You are a helpful assistant.';
    assert.equal(cache.count(text, tokenize), countTokens(text));
    assert.equal(cache.count(`${text.slice(0, 10)}${text.slice(10)}`, tokenize), countTokens(text));
    assert.equal(calls(), 1);
  });

  it('never keeps a text longer than its key bound, however often it comes', function () {
    const cache = new TokenCountCache({ maxEntries: 100, maxKeptChars: 1_000_000, maxKeyChars: 50 });
    const { tokenize, calls } = countingTokenizer();
    const long = 'word '.repeat(11);
    for (let i = 0; i < 3; i++) assert.equal(cache.count(long, tokenize), countTokens(long));
    assert.equal(calls(), 3);
    assert.equal(cache.size, 0);
  });

  it('keeps at most its entry bound, the least recently used going first', function () {
    const cache = new TokenCountCache({ maxEntries: 3, maxKeptChars: 1_000_000, maxKeyChars: 100 });
    const { tokenize, calls } = countingTokenizer();
    for (const text of ['a', 'b', 'c']) cache.count(text, tokenize);
    cache.count('a', tokenize); // used again: 'b' is now the oldest
    cache.count('d', tokenize);
    assert.equal(cache.size, 3);
    const before = calls();
    cache.count('a', tokenize);
    cache.count('c', tokenize);
    assert.equal(calls(), before, 'a and c were kept');
    cache.count('b', tokenize);
    assert.equal(calls(), before + 1, 'b was dropped');
  });

  it('keeps at most its bound of characters, however the texts are sized', function () {
    const cache = new TokenCountCache({ maxEntries: 1_000, maxKeptChars: 100, maxKeyChars: 40 });
    const { tokenize } = countingTokenizer();
    for (let i = 0; i < 50; i++) {
      cache.count(`${i} ${'x'.repeat(i % 40)}`.slice(0, 40), tokenize);
      assert.ok(cache.keptChars <= 100, `kept ${cache.keptChars} characters`);
    }
    assert.ok(cache.size > 0);
  });

  it('holds the default bounds: 4,096 texts, 2 Mi characters, none over 16 Ki characters', function () {
    assert.deepEqual(TOKEN_COUNT_CACHE_BOUNDS, { maxEntries: 4_096, maxKeptChars: 2 * 1024 * 1024, maxKeyChars: 16 * 1024 });
    const cache = new TokenCountCache(TOKEN_COUNT_CACHE_BOUNDS);
    const length = (tokenizeText: string) => tokenizeText.length; // the count itself does not matter here
    for (let i = 0; i < 5_000; i++) cache.count(`prompt ${i}`, length);
    assert.equal(cache.size, 4_096);
    const big = 'y'.repeat(16 * 1024 - 8);
    for (let i = 0; i < 200; i++) cache.count(`${String(i).padStart(8, '0')}${big}`, length);
    assert.ok(cache.keptChars <= 2 * 1024 * 1024, `kept ${cache.keptChars} characters`);
    assert.equal(cache.count('z'.repeat(16 * 1024 + 1), length), 16 * 1024 + 1);
    assert.ok(cache.keptChars <= 2 * 1024 * 1024);
  });
});
