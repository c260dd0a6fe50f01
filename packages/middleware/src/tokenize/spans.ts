import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';

/**
 * The longest pre-split piece handed to the tokenizer whole. gpt-tokenizer's byte-pair merge costs the square of a
 * piece's length, and o200k's pre-split ends a piece only at a change of whitespace, case, digit or punctuation: a
 * prompt of 128 Ki of one letter (or of CJK text without punctuation, or of spaces) held the event loop for 9 s, and
 * the 20 MiB body limit allowed hours. A longer piece is counted in slices of this length: linear, and within about a
 * token per slice of its exact count (a seam may merge differently). 256 is where the merge's square stops showing
 * next to the tokenizer's cost per token (1 MiB of random letters: 868 ms in slices of 1,024, ~660 ms in slices of 256).
 */
export const LONG_PIECE = 256;

/**
 * The parts of `text` to count one by one, whose counts add up to the text's: runs of whole o200k pieces, cut at a
 * piece boundary before they exceed `maxRunChars` (Infinity: never), and each piece longer than LONG_PIECE in slices
 * of LONG_PIECE characters. A run counts exactly as it does inside the text, since the tokenizer splits the text into
 * the same pieces and counts each apart anyway; only a long piece's slices are an estimate.
 *
 * @example
 * [...spansToCount('hi ' + 'x'.repeat(600), Infinity)] // ['hi', ' ' + 'x'.repeat(255), 'x'.repeat(256), 'x'.repeat(89)]
 */
export function* spansToCount(text: string, maxRunChars: number): Generator<string, void, undefined> {
  // A regex of its own: exec keeps its position in lastIndex, and a generator may be left half-way.
  const pieces = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, O200K_TOKEN_SPLIT_REGEX.flags);
  let runStart = 0;
  for (let piece = pieces.exec(text); piece !== null; piece = pieces.exec(text)) {
    const start = piece.index;
    const end = start + piece[0].length;
    if (end - start > LONG_PIECE) {
      if (start > runStart) yield text.slice(runStart, start);
      yield* slicesOf(text, start, end);
      runStart = end;
    } else if (end - runStart > maxRunChars && start > runStart) {
      yield text.slice(runStart, start);
      runStart = start;
    }
  }
  // Whatever follows the last long piece (or the whole text): characters between pieces, if the regex skipped any, stay in the runs.
  if (runStart < text.length) yield runStart === 0 ? text : text.slice(runStart);
}

/** text[start, end) in slices of LONG_PIECE characters, never between the halves of a surrogate pair. */
function* slicesOf(text: string, start: number, end: number): Generator<string, void, undefined> {
  for (let at = start; at < end; ) {
    let cut = Math.min(at + LONG_PIECE, end);
    if (cut < end && isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1;
    yield text.slice(at, cut);
    at = cut;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
