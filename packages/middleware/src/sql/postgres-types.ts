import type { StorageClass } from './column-types.js';

/**
 * Values as the sql.js kind answers them (README "Typed values"), from PostgreSQL's text format: integers as
 * numbers, beyond 2^53 as strings; floats as numbers; bytea as base64 (a BLOB); booleans as true/false;
 * everything else (numeric, dates, json, arrays…) as PostgreSQL's own text, never reinterpreted.
 */
const BOOL = 16;
const BYTEA = 17;
const INT8 = 20;
const INT2 = 21;
const INT4 = 23;
const OID = 26;
const FLOAT4 = 700;
const FLOAT8 = 701;

const asInteger = (text: string) => {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : text;
};
const asFloat = (text: string) => {
  const value = Number(text);
  return Number.isFinite(value) ? value : text; // NaN and ±Infinity have no JSON number
};
const asBool = (text: string) => text === 't';
const asBase64 = (text: string) => Buffer.from(text.slice(2), 'hex').toString('base64'); // bytea's hex format: \x…
const asText = (text: string) => text;

const parsers: Record<number, (text: string) => unknown> = { [BOOL]: asBool, [BYTEA]: asBase64, [INT8]: asInteger, [INT2]: asInteger, [INT4]: asInteger, [OID]: asInteger, [FLOAT4]: asFloat, [FLOAT8]: asFloat };

/** pg's `types` option: one parser per type oid, text for any other type. */
export const postgresTypeParsers = {
  getTypeParser: (oid: number) => parsers[oid] ?? asText,
};

/** Common type oids → their names (pg_type.typname), the `declared` of `column_types`; null for others. */
const typeNames: Record<number, string> = {
  16: 'bool', 17: 'bytea', 18: 'char', 19: 'name', 20: 'int8', 21: 'int2', 23: 'int4', 25: 'text', 26: 'oid',
  114: 'json', 142: 'xml', 700: 'float4', 701: 'float8', 1042: 'bpchar', 1043: 'varchar', 1082: 'date',
  1083: 'time', 1114: 'timestamp', 1184: 'timestamptz', 1186: 'interval', 1266: 'timetz', 1700: 'numeric',
  2950: 'uuid', 3802: 'jsonb', 869: 'inet', 650: 'cidr', 829: 'macaddr', 1560: 'bit', 1562: 'varbit',
  1000: '_bool', 1005: '_int2', 1007: '_int4', 1016: '_int8', 1009: '_text', 1015: '_varchar', 1021: '_float4', 1022: '_float8',
};

export function postgresTypeName(oid: number): string | null {
  return typeNames[oid] ?? null;
}

const storageByOid: Record<number, StorageClass> = { [BOOL]: 'integer', [BYTEA]: 'blob', [INT8]: 'integer', [INT2]: 'integer', [INT4]: 'integer', [OID]: 'integer', [FLOAT4]: 'real', [FLOAT8]: 'real' };

/** The storage class of a non-null value, as the sql.js kind names them (a non-finite float is sent as text). */
export function storageOfPostgres(oid: number, value: unknown): StorageClass {
  const storage = storageByOid[oid] ?? 'text';
  return storage === 'real' && typeof value === 'string' ? 'text' : storage;
}
