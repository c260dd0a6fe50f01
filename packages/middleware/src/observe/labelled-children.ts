/**
 * A metric's labelled children, memoized by their label values. prom-client hashes a label object on every
 * `inc`/`observe` (keys sorted, validated, joined); the label sets here are bounded, so each child is made
 * once and later calls are one string join and one Map read.
 */
export class LabelledChildren<Child> {
  readonly #children = new Map<string, Child>();

  constructor(private readonly make: (...values: string[]) => Child) {}

  of(...values: (string | number)[]): Child {
    const key = values.join('\u0000');
    let child = this.#children.get(key);
    if (!child) {
      child = this.make(...values.map(String));
      this.#children.set(key, child);
    }
    return child;
  }
}
