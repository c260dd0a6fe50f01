import type { ParamRule } from './param-rule.js';
import type { ParamCapability, ParamTable } from './param-table.js';

/** What adaptation changed, in the order it happened; this is what fills the §4.3 headers. */
export interface Adaptation {
  dropped: string[];
  clamped: { name: string; requested: number; applied: number }[];
}

/**
 * Step 6 of the pipeline (contract §4.3): drops parameters the route cannot take and clamps values
 * outside its range, returning a new body and the record of every change (never a silent one).
 * The model's own rules from the config override the provider's table.
 *
 * @example
 * adaptParams({ temperature: 1.7, logit_bias: {} }, anthropicParamsForChatClients, {}, undefined)
 * // → body { temperature: 1 }, dropped ['logit_bias'], clamped [{ name: 'temperature', requested: 1.7, applied: 1 }]
 */
export function adaptParams(
  body: Record<string, unknown>,
  providerTable: ParamTable,
  modelRules: Record<string, ParamRule>,
  outputLimit: OutputLimit | undefined,
): { body: Record<string, unknown>; adaptation: Adaptation } {
  return adaptBody(body, mergeParamRules(providerTable, modelRules, outputLimit));
}

/** The output budget's fields in the client's body and the model's limit on them. */
export interface OutputLimit {
  fields: readonly string[];
  max: number | undefined;
}

/** A route's parameter rules, merged once when its plan is built (routing/route-plans.ts). */
export type MergedParams = readonly (readonly [string, ParamCapability])[];

/**
 * Step 6 over a route's merged rules: what runs per request. The client's body is never changed (it is shared by
 * every route of a failover): a copy is made at the first change, and a body nothing was adapted in (most) is
 * returned as it is, with no copy (issue 19). Returns the record of every change.
 */
export function adaptBody<Body extends object>(body: Body, table: MergedParams): { body: Body; adaptation: Adaptation } {
  const client = body as Record<string, unknown>;
  let adapted: Record<string, unknown> | undefined;
  let adaptation: Adaptation = NOTHING_ADAPTED;
  for (const [name, capability] of table) {
    const value = client[name];
    if (value === undefined) continue;
    if (value === null) {
      // null is "not set": nothing to report (rule 3), but a route that cannot take the field must not be sent it.
      if ('unsupported' in capability) delete (adapted ??= Object.assign({}, client))[name];
      continue;
    }
    if ('unsupported' in capability || ('expressible' in capability && !capability.expressible(value))) {
      delete (adapted ??= Object.assign({}, client))[name];
      if (adaptation === NOTHING_ADAPTED) adaptation = { dropped: [], clamped: [] };
      adaptation.dropped.push(name);
      continue;
    }
    if ('expressible' in capability) continue;
    if (typeof value !== 'number') continue;
    const applied = Math.min(capability.max ?? Infinity, Math.max(capability.min ?? -Infinity, value));
    if (applied !== value) {
      (adapted ??= Object.assign({}, client))[name] = applied;
      if (adaptation === NOTHING_ADAPTED) adaptation = { dropped: [], clamped: [] };
      adaptation.clamped.push({ name, requested: value, applied });
    }
  }
  return { body: (adapted ?? client) as Body, adaptation };
}

/** Shared by every request nothing was adapted for (most): never written to, see adaptBody. */
const NOTHING_ADAPTED: Adaptation = Object.freeze({ dropped: Object.freeze([]) as unknown as string[], clamped: Object.freeze([]) as unknown as Adaptation['clamped'] });

/**
 * The provider's table with the model's rules and output limit laid over it, in the provider's order
 * (the order the §4.3 headers list changes in).
 */
export function mergeParamRules(providerTable: ParamTable, modelRules: Record<string, ParamRule>, outputLimit: OutputLimit | undefined): MergedParams {
  const table: Record<string, ParamCapability> = { ...providerTable };
  for (const [name, rule] of Object.entries(modelRules)) {
    if (rule === true) delete table[name]; // absent from the table: passed through as sent
    else table[name] = rule === false ? { unsupported: true } : (narrowed(table[name], rule) ?? rule);
  }
  if (outputLimit?.max !== undefined) {
    for (const field of outputLimit.fields) table[field] = narrowed(table[field], { max: outputLimit.max }) ?? { ...table[field], max: outputLimit.max };
  }
  return Object.entries(table);
}

/** The §4.3 headers for an adaptation; none when nothing was adapted (rule 3). */
export function adaptationHeaders(adaptation: Adaptation): Record<string, string> {
  const headers: Record<string, string> = {};
  if (adaptation.dropped.length > 0) headers['x-service-dropped-params'] = adaptation.dropped.join(',');
  if (adaptation.clamped.length > 0) {
    headers['x-service-clamped-params'] = adaptation.clamped.map((c) => `${c.name}=${c.requested}>${c.applied}`).join(',');
  }
  return headers;
}

/**
 * A range laid over a range capability (undefined for any other kind): the tighter bound of each side wins, so a model's rule narrows its provider's
 * range (never widens it past what the provider takes) and the output limit never lifts a model's own max.
 */
function narrowed(capability: ParamCapability | undefined, range: { min?: number; max?: number }): ParamCapability | undefined {
  if (capability && ('unsupported' in capability || 'expressible' in capability)) return undefined;
  const min = tighter(Math.max, capability?.min, range.min);
  const max = tighter(Math.min, capability?.max, range.max);
  return { ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
}

function tighter(pick: (a: number, b: number) => number, a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : pick(a, b);
}
