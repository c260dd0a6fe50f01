/**
 * Appends `items` to `target` in order, one at a time. Not `target.push(...items)`: a spread passes every item as an
 * argument on the stack, and a client's turn of ~130,000 content blocks (5 MiB of JSON, well within the body limit)
 * overflowed it, a 500 instead of an answer. Translations merging a client's arrays use this.
 *
 * @example
 * appendAll(last.parts, content.parts);
 */
export function appendAll<T>(target: T[], items: readonly T[]): void {
  for (let index = 0; index < items.length; index++) target.push(items[index]!);
}
