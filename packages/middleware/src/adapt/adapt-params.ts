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
  outputLimit: { fields: readonly string[]; max: number | undefined } | undefined,
): { body: Record<string, unknown>; adaptation: Adaptation } {
  const table = mergedTable(providerTable, modelRules, outputLimit);
  const adapted: Record<string, unknown> = { ...body };
  const adaptation: Adaptation = { dropped: [], clamped: [] };
  for (const [name, capability] of table) {
    const value = adapted[name];
    if (value === undefined || value === null) continue;
    if ('unsupported' in capability || ('expressible' in capability && !capability.expressible(value))) {
      delete adapted[name];
      adaptation.dropped.push(name);
      continue;
    }
    if ('expressible' in capability) continue;
    if (typeof value !== 'number') continue;
    const applied = Math.min(capability.max ?? Infinity, Math.max(capability.min ?? -Infinity, value));
    if (applied !== value) {
      adapted[name] = applied;
      adaptation.clamped.push({ name, requested: value, applied });
    }
  }
  return { body: adapted, adaptation };
}

type MergedTable = readonly (readonly [string, ParamCapability])[];

const noFields: readonly string[] = [];

/**
 * Per provider table, per model's rules, per output-limit fields, per limit: all objects from the
 * catalog and the codecs, which live as long as the gateway.
 */
const mergedTables = new WeakMap<ParamTable, WeakMap<Record<string, ParamRule>, WeakMap<readonly string[], Map<number | undefined, MergedTable>>>>();

/**
 * The provider's table with the model's rules and output limit laid over it, in the provider's order
 * (the order the §4.3 headers list changes in). Built once per route rather than per request.
 */
function mergedTable(providerTable: ParamTable, modelRules: Record<string, ParamRule>, outputLimit: { fields: readonly string[]; max: number | undefined } | undefined): MergedTable {
  let byRules = mergedTables.get(providerTable);
  if (!byRules) mergedTables.set(providerTable, (byRules = new WeakMap()));
  let byFields = byRules.get(modelRules);
  if (!byFields) byRules.set(modelRules, (byFields = new WeakMap()));
  const fields = outputLimit?.fields ?? noFields;
  let byLimit = byFields.get(fields);
  if (!byLimit) byFields.set(fields, (byLimit = new Map()));
  const limitKey = outputLimit?.max;
  let merged = byLimit.get(limitKey);
  if (!merged) {
    const table: Record<string, ParamCapability> = { ...providerTable };
    for (const [name, rule] of Object.entries(modelRules)) table[name] = rule === false ? { unsupported: true } : rule;
    if (outputLimit?.max !== undefined) {
      for (const field of outputLimit.fields) table[field] = { ...table[field], max: outputLimit.max };
    }
    byLimit.set(limitKey, (merged = Object.entries(table)));
  }
  return merged;
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
