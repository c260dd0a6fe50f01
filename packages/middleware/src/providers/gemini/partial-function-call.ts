/** One piece of a streamed Gemini function call argument (`streamFunctionCallArguments`). */
export interface PartialArg {
  jsonPath: string;
  stringValue?: string;
  numberValue?: number;
  boolValue?: boolean;
  nullValue?: unknown;
  willContinue?: boolean;
}

/**
 * Assembles the arguments of a function call Gemini streams piecewise: the call opens with
 * `{name, willContinue: true}`, `partialArgs` follow (string values arrive in slices for the same
 * `jsonPath`) and an empty `functionCall: {}` closes it (recorded google-stream-tool-call-arguments).
 *
 * @example
 * const call = new PartialFunctionCall();
 * call.add([{ jsonPath: '$.location', stringValue: 'Bos', willContinue: true }, { jsonPath: '$.location', stringValue: 'ton' }]);
 * call.arguments() // '{"location":"Boston"}'
 */
export class PartialFunctionCall {
  readonly #root: Record<string, unknown> = {};

  add(parts: PartialArg[]): void {
    for (const part of parts) {
      const path = parsePath(part.jsonPath);
      if (path.length === 0) continue;
      // Keys are the argument names the model wrote (`__proto__`, `constructor` included): read as own
      // properties and written with defineProperty, never through a prototype's accessor.
      let node: Record<string | number, unknown> = this.#root;
      for (let i = 0; i < path.length - 1; i++) {
        const key = path[i]!;
        if (own(node, key) == null) put(node, key, typeof path[i + 1] === 'number' ? [] : {});
        node = own(node, key) as Record<string | number, unknown>;
      }
      const last = path.at(-1)!;
      if (part.stringValue !== undefined) put(node, last, (typeof own(node, last) === 'string' ? own(node, last) : '') + part.stringValue);
      else if (part.numberValue !== undefined) put(node, last, part.numberValue);
      else if (part.boolValue !== undefined) put(node, last, part.boolValue);
      else if ('nullValue' in part) put(node, last, null);
    }
  }

  arguments(): string {
    return JSON.stringify(this.#root);
  }
}

/** `$.a.b[0]` → ['a', 'b', 0]. */
function parsePath(jsonPath: string): (string | number)[] {
  const keys: (string | number)[] = [];
  for (const match of jsonPath.replace(/^\$/, '').matchAll(/\.([^.[\]]+)|\[(\d+)\]|\['([^']*)'\]/g)) {
    if (match[1] !== undefined) keys.push(match[1]);
    else if (match[2] !== undefined) keys.push(Number(match[2]));
    else if (match[3] !== undefined) keys.push(match[3]);
  }
  return keys;
}

function own(node: Record<string | number, unknown>, key: string | number): unknown {
  return Object.hasOwn(node, key) ? node[key] : undefined;
}

function put(node: Record<string | number, unknown>, key: string | number, value: unknown): void {
  Object.defineProperty(node, key, { value, writable: true, enumerable: true, configurable: true });
}
