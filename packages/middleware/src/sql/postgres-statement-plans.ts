import { refusePostgresStatement } from './postgres-statement-policy.js';
import { namedValues, splitPostgres, type PostgresStatement } from './postgres-statements.js';
import type { SqlParams, SqlValue } from './sql-types.js';

/** Texts longer than this are split every time: the cache holds at most PLANS_PER_STYLE × this per style. */
const MAX_CACHED_SQL_CHARS = 4_096;
const PLANS_PER_STYLE = 256;

/** A request text split and checked once: each statement's rewritten text, keyword and value sources. */
interface Plan {
  statements: PostgresStatement[];
  /** Positional: how many `?` the text holds; named: every name it uses. */
  positionalCount: number;
  names: string[];
}

/** The placeholder style a request's params select (postgres-statements.ts): it decides what is rewritten. */
type Style = 'positional' | 'named' | 'none';

function styleOf(params: SqlParams | undefined): Style {
  if (params === undefined) return 'none';
  return Array.isArray(params) ? 'positional' : 'named';
}

/**
 * The postgres kind's statements per request text: split, placeholders rewritten and the statement policy
 * applied once per text and params style, then kept (a bounded FIFO per style), so an application's repeated
 * statement costs a Map lookup and its values' binding. Only texts that passed the split and the policy are
 * kept; a request whose params do not fit the kept plan (another count, a missing name) is split again, which
 * throws the same error it always did.
 *
 * @example
 * const plans = new PostgresStatementPlans();
 * plans.statements('SELECT name FROM items WHERE id = ?', [42]); // split and checked
 * plans.statements('SELECT name FROM items WHERE id = ?', [43]); // from the plan: [{ text: '… id = $1', values: [43] }]
 */
export class PostgresStatementPlans {
  readonly #plans: Record<Style, Map<string, Plan>> = { positional: new Map(), named: new Map(), none: new Map() };

  /** Throws a RequestFailure (with `statementIndex` for a statement the policy refuses) as splitPostgres does. */
  statements(sql: string, params: SqlParams | undefined): PostgresStatement[] {
    const plans = this.#plans[styleOf(params)];
    const plan = plans.get(sql);
    if (plan) {
      const bound = bind(plan, params);
      if (bound) return bound;
    }
    const statements = splitChecked(sql, params);
    if (sql.length <= MAX_CACHED_SQL_CHARS) {
      if (plans.size >= PLANS_PER_STYLE) plans.delete(plans.keys().next().value!);
      plans.set(sql, planOf(statements));
    }
    return statements;
  }
}

function splitChecked(sql: string, params: SqlParams | undefined): PostgresStatement[] {
  const statements = splitPostgres(sql, params);
  for (let index = 0; index < statements.length; index++) {
    try {
      refusePostgresStatement(statements[index]!);
    } catch (error) {
      throw Object.assign(error as Error, { statementIndex: index });
    }
  }
  return statements;
}

function planOf(statements: PostgresStatement[]): Plan {
  const names: string[] = [];
  let positionalCount = 0;
  for (const { sources } of statements) {
    for (const source of sources) {
      if (typeof source === 'number') positionalCount++;
      else names.push(source);
    }
  }
  return { statements, positionalCount, names };
}

/** The plan's statements with this request's values; undefined when the params do not fit it (split again). */
function bind(plan: Plan, params: SqlParams | undefined): PostgresStatement[] | undefined {
  if (params === undefined) return plan.statements;
  let named: Record<string, SqlValue> | undefined;
  if (Array.isArray(params)) {
    if (params.length !== plan.positionalCount) return undefined;
  } else {
    named = namedValues(params);
    for (const name of plan.names) if (!Object.hasOwn(named, name)) return undefined;
  }
  const bound = new Array<PostgresStatement>(plan.statements.length);
  for (let index = 0; index < bound.length; index++) {
    const { text, keyword, sources } = plan.statements[index]!;
    const values = new Array<SqlValue>(sources.length);
    for (let i = 0; i < sources.length; i++) {
      const source = sources[i]!;
      values[i] = named ? named[source as string]! : (params as SqlValue[])[source as number]!;
    }
    bound[index] = { text, values, keyword, sources };
  }
  return bound;
}
