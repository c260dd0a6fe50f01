/**
 * The one rule for organization names, shared by config parsing and the admin operations: letters,
 * digits, `.`, `_`, `-`, starting with a letter or digit, at most 64 characters. Names end up as
 * object keys, Redis key parts, ledger fields and CLI arguments; the rule keeps control characters,
 * separators and unbounded input out of all of them. Object.prototype's own names (`constructor`,
 * `toString`, …) are refused too, though every lookup is by own property, so none can resolve to an
 * inherited member.
 */
export const ORGANIZATION_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const RESERVED = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * Why a name is not a valid organization name, or undefined when it is.
 *
 * @example
 * organizationNameProblem('acme')        // undefined
 * organizationNameProblem('constructor') // 'organization name "constructor" is reserved'
 */
export function organizationNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || !ORGANIZATION_NAME_PATTERN.test(name)) {
    return `organization names are 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit (got ${JSON.stringify(name)?.slice(0, 80)})`;
  }
  if (RESERVED.has(name)) return `organization name "${name}" is reserved`;
  return undefined;
}
