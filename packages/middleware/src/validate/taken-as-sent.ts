import type { z } from 'zod';

/**
 * What a compiled check says of a value: zod would accept it and give back the same value (copied, object keys
 * in the schema's order: `PASS`); zod would refuse it (`FAIL`); or zod's answer could differ from the value in
 * more than key order (a key zod strips, an own `__proto__`): only zod can tell (`UNSURE`).
 */
const PASS = 0;
const FAIL = 1;
const UNSURE = 2;
type Verdict = typeof PASS | typeof FAIL | typeof UNSURE;
type Check = (value: unknown) => Verdict;

/** zod's internals as far as the compiler reads them (zod v4's `_zod.def`). */
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: readonly z.ZodType[];
  values?: readonly unknown[];
  entries?: Record<string, unknown>;
  checks?: readonly { _zod: { def: CheckDef } }[];
}
interface CheckDef {
  check: string;
  format?: string;
  value?: unknown;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
}

/**
 * A check, compiled once from a zod schema, that tells when the body a client sent can be taken as it is:
 * zod's `parse` would accept it and return a copy equal to it but for its keys' order (README "Request
 * validation"). Issue 19: zod's copy of a chat request cost ~1.5 µs of each one. The schema stays the one
 * source of truth: the compiler reads its definition and knows a closed list of kinds (object, loose and strict
 * objects, string, number with its integer and bound checks, boolean, null, literal, enum, array with length
 * bounds, union, optional, nullable); a schema holding anything else (a default, a transform, a refine, another
 * check) compiles to undefined, and every value the check does not pass goes to zod, which also renders every
 * error. An own `__proto__` key at a level zod copies (zod drops it) and a key a stripping object would drop are
 * zod's to handle too.
 *
 * @example
 * const asSent = takenAsSentCheck(chatCompletionsBody);
 * const body = asSent?.(raw) ? (raw as ChatCompletionsBody) : parseBody(chatCompletionsBody, raw);
 */
export function takenAsSentCheck(schema: z.ZodType): ((value: unknown) => boolean) | undefined {
  const check = compile(schema);
  return check && ((value) => check(value) === PASS);
}

function compile(schema: z.ZodType): Check | undefined {
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  const compiler = compilers[def.type];
  return compiler?.(def);
}

/** One compiler per zod kind (def.type); a kind not in this table is zod's alone. */
const compilers: Record<string, (def: Def) => Check | undefined> = {
  string: (def) => (hasChecks(def) ? undefined : (value) => (typeof value === 'string' ? PASS : FAIL)),
  boolean: (def) => (hasChecks(def) ? undefined : (value) => (typeof value === 'boolean' ? PASS : FAIL)),
  null: () => (value) => (value === null ? PASS : FAIL),
  number: compileNumber,
  literal: (def) => {
    const values = def.values ?? [];
    return values.every(isPrimitive) ? (value) => (values.includes(value) ? PASS : FAIL) : undefined;
  },
  enum: (def) => {
    const values = new Set(Object.values(def.entries ?? {}));
    return (value) => (values.has(value) ? PASS : FAIL);
  },
  optional: (def) => wrap(def, (inner) => (value) => (value === undefined ? PASS : inner(value))),
  nullable: (def) => wrap(def, (inner) => (value) => (value === null ? PASS : inner(value))),
  array: compileArray,
  union: compileUnion,
  object: compileObject,
};

function hasChecks(def: Def): boolean {
  return (def.checks?.length ?? 0) > 0;
}

function isPrimitive(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}

function wrap(def: Def, around: (inner: Check) => Check): Check | undefined {
  const inner = def.innerType && !hasChecks(def) ? compile(def.innerType) : undefined;
  return inner && around(inner);
}

/** zod's number refuses NaN and ±Infinity; `int()` is a safe integer, `multipleOf(1)` any whole number; `positive()` and the like are bounds. */
function compileNumber(def: Def): Check | undefined {
  const tests: ((value: number) => boolean)[] = [Number.isFinite];
  for (const { _zod } of def.checks ?? []) {
    const check = _zod.def;
    if (check.check === 'number_format' && check.format === 'safeint') tests.push(Number.isSafeInteger);
    else if (check.check === 'multiple_of' && check.value === 1) tests.push(Number.isInteger);
    else if ((check.check === 'greater_than' || check.check === 'less_than') && typeof check.value === 'number') tests.push(bound(check.check, check.value, check.inclusive === true));
    else return undefined;
  }
  return (value) => {
    if (typeof value !== 'number') return FAIL;
    for (const test of tests) if (!test(value)) return FAIL;
    return PASS;
  };
}

function bound(kind: 'greater_than' | 'less_than', limit: number, inclusive: boolean): (value: number) => boolean {
  if (kind === 'greater_than') return inclusive ? (value) => value >= limit : (value) => value > limit;
  return inclusive ? (value) => value <= limit : (value) => value < limit;
}

function compileArray(def: Def): Check | undefined {
  const element = def.element && compile(def.element);
  if (!element) return undefined;
  let min = 0;
  let max = Infinity;
  for (const { _zod } of def.checks ?? []) {
    const check = _zod.def;
    if (check.check === 'min_length' && typeof check.minimum === 'number') min = check.minimum;
    else if (check.check === 'max_length' && typeof check.maximum === 'number') max = check.maximum;
    else return undefined;
  }
  return (value) => {
    if (!Array.isArray(value) || value.length < min || value.length > max) return FAIL;
    let verdict: Verdict = PASS;
    // By index: a hole reads as undefined, as zod reads it.
    for (let index = 0; index < value.length; index++) {
      const one = element(value[index]);
      if (one === FAIL) return FAIL;
      if (one === UNSURE) verdict = UNSURE;
    }
    return verdict;
  };
}

/**
 * zod takes the first option that accepts the value: an option that fails is passed over, and the value is
 * taken as sent only when the first option that does not fail passes for sure.
 */
function compileUnion(def: Def): Check | undefined {
  const options = (def.options ?? []).map(compile);
  if (hasChecks(def) || options.length === 0 || options.some((option) => option === undefined)) return undefined;
  const checks = options as Check[];
  return (value) => {
    for (const check of checks) {
      const verdict = check(value);
      if (verdict !== FAIL) return verdict;
    }
    return FAIL;
  };
}

/**
 * zod copies an object: its shape's keys (absent optional ones stay absent), then, loose, every other own key as
 * it is; a stripping object drops the others (then the value is not taken as sent) and a strict one refuses them.
 * The value's own keys are walked, not the shape's: a body holds a few of a schema's many optional fields.
 */
function compileObject(def: Def): Check | undefined {
  const catchall = def.catchall ? (def.catchall as unknown as { _zod: { def: Def } })._zod.def.type : 'strip';
  if (hasChecks(def) || !['strip', 'unknown', 'any', 'never'].includes(catchall)) return undefined;
  const fields = new Map<string, { check: Check; required: boolean }>();
  let required = 0;
  for (const [name, schema] of Object.entries(def.shape ?? {})) {
    const field = compile(schema);
    // A name Object.prototype has would be read from there when absent (zod reads it so, too): zod's alone.
    if (!field || name in Object.prototype) return undefined;
    const optional = (schema as unknown as { _zod: { def: Def } })._zod.def.type === 'optional';
    // Absent, a field that is not optional fails in zod (its own check or zod's `nonoptional`): counted.
    if (!optional) required++;
    fields.set(name, { check: field, required: !optional });
  }
  const others = catchall === 'strip' ? UNSURE : catchall === 'never' ? FAIL : PASS;
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return FAIL;
    const record = value as Record<string, unknown>;
    let verdict: Verdict = PASS;
    let requiredSeen = 0;
    for (const name in record) {
      const field = fields.get(name);
      if (field === undefined) {
        // zod drops an own `__proto__` (copying it would set the copy's prototype).
        if (name === '__proto__') verdict = UNSURE;
        else if (others !== PASS) return others;
        continue;
      }
      const one = field.check(record[name]);
      if (one === FAIL) return FAIL;
      if (one === UNSURE) verdict = UNSURE;
      if (field.required) requiredSeen++;
    }
    return requiredSeen < required ? FAIL : verdict;
  };
}
