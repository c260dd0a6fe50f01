import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Characters counted in one turn of the event loop when a large prompt is counted in turns: at the tokenizer's ~1 µs
 * per token, 16 Ki characters are a few milliseconds to ~30 ms (CJK), while a 20 MiB body counted at once is 10+ s of
 * one turn, during which no other request, stream or timer of the process runs.
 */
export const TURN_CHARS = 16 * 1024;

/**
 * The counting done since the event loop last had a turn. Before counting the next `chars` characters, `due(chars)`
 * says whether they would make this turn longer than TURN_CHARS; then `await next()` gives the loop its turn
 * (setImmediate: after pending I/O). No promise is made while a turn goes on.
 *
 * @example
 * const turns = new Turns();
 * for (const span of spans) { if (turns.due(span.length)) await turns.next(); tokens += count(span); }
 */
export class Turns {
  #chars = 0;

  /** Whether counting `chars` more characters must wait for the next turn (then they start it). */
  due(chars: number): boolean {
    this.#chars += chars;
    if (this.#chars <= TURN_CHARS || this.#chars === chars) return false;
    this.#chars = chars;
    return true;
  }

  /** Resolves once the event loop served whatever was waiting (I/O callbacks, other requests). */
  next(): Promise<void> {
    return nextTurn();
  }
}
