/**
 * How deep a request body's JSON may nest. Real requests nest a dozen levels at most (a tool's JSON
 * schema inside a tool inside a request); 64 leaves room for any of them and keeps every recursive walk
 * (zod, the 422's rendering, JSON.stringify) far from the stack's limit (issue 15 item 7).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text, or an already parsed value, nests deeper than `max` arrays and objects. Iterative
 * (a recursive check would overflow on the very input it guards against); on text it is one pass over
 * the characters, skipping strings.
 *
 * @example
 * jsonDepthExceeds('[[1]]', 1) // true
 */
export function jsonDepthExceeds(json: unknown, max: number): boolean {
  return typeof json === 'string' ? textDepthExceeds(json, max) : valueDepthExceeds(json, max);
}

function textDepthExceeds(text: string, max: number): boolean {
  // Nesting deeper than `max` needs more than `max` brackets; most bodies have a few dozen, and counting
  // them with indexOf (native) costs a fraction of the character walk below (~10 µs for 2 KB).
  if (bracketsAtMost(text, max)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++; // backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > max) return true;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return false;
}

function bracketsAtMost(text: string, max: number): boolean {
  let count = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) if (++count > max) return false;
  }
  return true;
}

function valueDepthExceeds(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return false;
}
