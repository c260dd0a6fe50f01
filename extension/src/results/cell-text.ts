/** How a grid cell shows a value: one line of text, a class for its kind, and the whole value for a tooltip. */
export interface CellText {
  text: string;
  kind: 'null' | 'number' | 'text' | 'blob' | 'json';
  full: string;
}

/** Longest text shown in a cell; the tooltip has all of it. */
const MAX_CELL_CHARS = 200;

/**
 * A value of the SQL endpoint's JSON (BLOBs as base64, told apart by `column_types`) as one grid line:
 * NULL marked, a BLOB as its size rather than its base64, a newline shown as ↵ so one multi-line value
 * no longer doubles every row's height (issue 18 #5).
 *
 * @example cellText('a\nb', 'text') // { text: 'a↵b', kind: 'text', full: 'a\nb' }
 * @example cellText('AAEC', 'blob') // { text: '<BLOB 3 bytes> 00 01 02', kind: 'blob', full: … }
 */
export function cellText(value: unknown, storage?: 'integer' | 'real' | 'text' | 'blob' | null, declared?: string | null): CellText {
  if (value === null || value === undefined) return NULL_CELL;
  if (typeof value === 'string' && NON_FINITE_TEXT.has(value) && (storage === 'real' || FLOAT_DECLARED.test(declared ?? ''))) return { text: value, kind: 'number', full: value };
  if (storage === 'blob' && typeof value === 'string') {
    // Only the first 16 bytes are decoded (24 base64 characters hold 18): the size comes from the text's length.
    const size = base64Size(value);
    const hex = [...base64Bytes(value.slice(0, 24)).slice(0, 16)].map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
    return { text: `<BLOB ${size} byte${size === 1 ? '' : 's'}> ${hex}${size > 16 ? ' …' : ''}`.trimEnd(), kind: 'blob', full: hex };
  }
  if (typeof value === 'number' || typeof value === 'bigint') return { text: String(value), kind: 'number', full: String(value) };
  const full = typeof value === 'object' ? JSON.stringify(value) : String(value);
  // Drawn for each visible cell on every scroll: only the start a cell can show is read (a 50 MB value took 3 s);
  // twice the shown length, since each \r\n becomes one ↵.
  const line = full.slice(0, 2 * MAX_CELL_CHARS + 2).replace(/\r?\n/g, '↵');
  return { text: line.length > MAX_CELL_CHARS ? `${line.slice(0, /[\uD800-\uDBFF]/.test(line[MAX_CELL_CHARS - 1]!) ? MAX_CELL_CHARS - 1 : MAX_CELL_CHARS)}…` : line, kind: typeof value === 'object' ? 'json' : storage === 'integer' || storage === 'real' ? 'number' : 'text', full };
}

/**
 * Infinity, -Infinity and NaN have no JSON number: both SQL engines send them as text, the sql.js kind with
 * storage `real` (README "Typed values"), the PostgreSQL kind declared float4/float8; shown literally, as numbers.
 */
const NON_FINITE_TEXT = new Set(['Infinity', '-Infinity', 'NaN']);
const FLOAT_DECLARED = /^(float[48]?|real|double( precision)?)$/i;
const NULL_CELL: CellText = { text: 'NULL', kind: 'null', full: 'NULL' };

/** The bytes a base64 text holds, without decoding it: three per four characters, less the padding. */
function base64Size(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}

function base64Bytes(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * The storage class of one value: the row's own when the column mixes classes (null for a NULL), else the
 * column's, null for a NULL.
 */
export function storageAt(type: { storage: string | null; storage_by_row?: (string | null)[] } | undefined, row: number, value: unknown): 'integer' | 'real' | 'text' | 'blob' | null | undefined {
  const storage = type?.storage === 'mixed' ? type.storage_by_row?.[row] : value === null ? null : type?.storage;
  return storage as 'integer' | 'real' | 'text' | 'blob' | null | undefined;
}

/** SQLite's order for ORDER BY: NULL first, then numbers by value, then text. */
export function compareCells(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (typeof a === 'string' && NON_FINITE_TEXT.has(a)) a = Number(a);
  if (typeof b === 'string' && NON_FINITE_TEXT.has(b)) b = Number(b);
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'string' && BIG_INTEGER.test(a)) a = BigInt(a);
  if (typeof b === 'string' && BIG_INTEGER.test(b)) b = BigInt(b);
  if (isNumeric(a) && isNumeric(b)) return a < b ? -1 : a > b ? 1 : 0;
  if (isNumeric(a)) return -1;
  if (isNumeric(b)) return 1;
  return String(a) < String(b) ? -1 : 1;
}

/** An integer the SQL endpoint sent as a string: beyond ±2^53, so never a text a safe number could be. */
const BIG_INTEGER = /^-?\d{16,}$/;
const isNumeric = (value: unknown): value is number | bigint => typeof value === 'number' || typeof value === 'bigint';

/** A range of rows and columns as tab-separated lines, as spreadsheets paste them; NULL as an empty cell. */
export function rangeAsTsv(rows: readonly unknown[][], left: number, right: number): string {
  const field = (value: unknown) => (value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value).replace(/[\t\r\n]+/g, ' '));
  return rows.map((row) => row.slice(left, right + 1).map(field).join('\t')).join('\n');
}

/** A value in full for the inspector: JSON text indented, a BLOB as its size and a hex dump of 16 bytes a line. */
export function inspectorText(value: unknown, storage: string | undefined): { text: string; kind: string } {
  if (value === null || value === undefined) return { text: 'NULL', kind: 'NULL' };
  if (storage === 'blob' && typeof value === 'string') {
    const bytes = base64Bytes(value);
    const lines: string[] = [];
    for (let at = 0; at < bytes.length; at += 16) lines.push(`${at.toString(16).padStart(8, '0')}  ${[...bytes.slice(at, at + 16)].map((byte) => byte.toString(16).padStart(2, '0')).join(' ')}`);
    return { text: lines.join('\n'), kind: `BLOB, ${bytes.length} byte${bytes.length === 1 ? '' : 's'}` };
  }
  if (storage === 'integer' || storage === 'real') return { text: String(value), kind: 'number' };
  // JSON.parse rounds integers past 2^53: such a text is shown as it is rather than with a wrong number.
  if (typeof value === 'string' && /^\s*[[{]/.test(value) && !/\d{16,}/.test(value)) {
    try {
      return { text: JSON.stringify(JSON.parse(value), null, 2), kind: 'JSON text' };
    } catch {
      // Not JSON after all: shown as the text it is.
    }
  }
  if (typeof value === 'object') return { text: JSON.stringify(value, null, 2), kind: 'JSON' };
  return { text: String(value), kind: typeof value === 'number' ? 'number' : `text, ${String(value).length} characters` };
}
