import type { Database } from 'sql.js';

/** One instruction of an EXPLAIN listing: opcode, p1, p2, p3, p4. */
type Op = [string, number, number, number, string | null];

/** Where a result register's value came from. */
type Origin = { table: { cursor: number; column: number } } | { rowid: number } | undefined;

/**
 * Opcodes that never write a register (jumps, cursor moves, comparisons, in-place affinity): tracing a
 * result register back passes over them. Any other opcode naming the register in p1–p3 is taken as
 * writing it, and the column's declared type is then unknown (null) — never a wrong one.
 */
const passive = new Set([
  'Init', 'Goto', 'Halt', 'Transaction', 'TableLock', 'Rewind', 'Next', 'Prev', 'SorterNext', 'SorterSort', 'Sort', 'Last',
  'SeekRowid', 'NotExists', 'SeekGE', 'SeekGT', 'SeekLE', 'SeekLT', 'IdxGE', 'IdxGT', 'IdxLE', 'IdxLT', 'Close', 'OpenRead',
  'OpenWrite', 'ReopenIdx', 'OpenPseudo', 'SorterOpen', 'SorterInsert', 'ResultRow', 'Affinity', 'RealAffinity', 'Once', 'Noop',
  'Explain', 'Eq', 'Ne', 'Lt', 'Le', 'Gt', 'Ge', 'If', 'IfNot', 'IsNull', 'NotNull', 'ColumnsUsed', 'DeferredSeek', 'CursorHint',
  'MustBeInt', 'Found', 'NotFound', 'NoConflict', 'IsType',
]);

const traced = new Set(['Column', 'Rowid', 'IdxRowid', 'SCopy', 'IntCopy', 'Copy']);

/**
 * The declared type of each result column of one statement — what sqlite3_column_decltype answers, which
 * sql.js does not export — read from the statement's compiled program: each register of the first
 * `ResultRow` is traced back through copies (and through a sorter's records, for ORDER BY) to the table or
 * index column it was read from, and that column's declared type is looked up in the schema. A value that
 * is computed, or whose path the tracer does not follow, has null. `sql` is one statement from its first token.
 *
 * @example
 * declaredTypes(db, 'SELECT id, photo FROM people ORDER BY name') // ['INTEGER', 'BLOB']
 */
export function declaredTypes(db: Database, sql: string): (string | null)[] {
  let program: Op[];
  try {
    program = (db.exec(`EXPLAIN ${sql}`)[0]?.values ?? []).map((row) => [row[1] as string, row[2] as number, row[3] as number, row[4] as number, row[5] as string | null]);
  } catch {
    return [];
  }
  const resultAt = program.findIndex(([opcode]) => opcode === 'ResultRow');
  if (resultAt < 0) return [];
  const [, first, count] = program[resultAt]!;
  const schema = new SchemaTypes(db);
  const types: (string | null)[] = [];
  for (let register = first; register < first + count; register++) types.push(schema.typeOf(program, originOf(program, register, resultAt)));
  return types;
}

/** Follows one register back from instruction `before` to the column it was read from. */
function originOf(program: Op[], register: number, before: number, depth = 0): Origin {
  if (depth > 16) return undefined;
  for (let at = before - 1; at >= 0; at--) {
    const [opcode, p1, p2, p3] = program[at]!;
    if (opcode === 'Column' && p3 === register) return fromColumn(program, p1, p2, at, depth);
    if ((opcode === 'Rowid' || opcode === 'IdxRowid') && p2 === register) return { rowid: p1 };
    if ((opcode === 'SCopy' || opcode === 'IntCopy') && p2 === register) return originOf(program, p1, at, depth + 1);
    if (opcode === 'Copy' && register >= p2 && register <= p2 + p3) return originOf(program, p1 + register - p2, at, depth + 1);
    // The opcodes above write only the operand checked; the passive ones write none.
    if (traced.has(opcode) || passive.has(opcode)) continue;
    if (p1 === register || p2 === register || p3 === register) return undefined;
  }
  return undefined;
}

/** A Column read from a sorter's pseudo-cursor is field `column` of the record the sorter was given. */
function fromColumn(program: Op[], cursor: number, column: number, at: number, depth: number): Origin {
  const pseudo = program.findIndex(([opcode, p1]) => opcode === 'OpenPseudo' && p1 === cursor);
  if (pseudo < 0) return { table: { cursor, column } };
  const data = program.find(([opcode, , , p3]) => opcode === 'SorterData' && p3 === cursor);
  const insert = data && program.findIndex(([opcode, p1]) => opcode === 'SorterInsert' && p1 === data[1]);
  if (insert === undefined || insert < 0) return undefined;
  const recordRegister = program[insert]![2];
  for (let i = insert - 1; i >= 0; i--) {
    const [opcode, p1, p2, p3] = program[i]!;
    if (opcode === 'MakeRecord' && p3 === recordRegister) return column < p2 ? originOf(program, p1 + column, i, depth + 1) : undefined;
  }
  return undefined;
}

/** Declared column types by the root page a cursor opened, looked up once per statement. */
class SchemaTypes {
  constructor(private readonly db: Database) {}

  typeOf(program: Op[], origin: Origin): string | null {
    if (!origin) return null;
    const cursor = 'rowid' in origin ? origin.rowid : origin.table.cursor;
    const open = program.find(([opcode, p1]) => (opcode === 'OpenRead' || opcode === 'OpenWrite' || opcode === 'ReopenIdx') && p1 === cursor);
    if (!open || open[3] !== 0) return null; // only the main database has a schema to read
    const object = this.db.exec('SELECT type, name, tbl_name FROM sqlite_schema WHERE rootpage = ?', [open[2]])[0]?.values[0];
    if (!object) return null;
    const [type, name, table] = object as [string, string, string];
    const columns = this.#columns(table);
    // A covering index's rowid (IdxRowid) is its table's.
    if ('rowid' in origin) return rowidType(columns);
    if (type === 'table') return columns.find((column) => column.stored === origin.table.column)?.type ?? null;
    const indexed = this.db.exec('SELECT cid FROM pragma_index_xinfo(?) WHERE seqno = ?', [name, origin.table.column])[0]?.values[0]?.[0] as number | undefined;
    if (indexed === undefined || indexed === -2) return null;
    return indexed === -1 ? rowidType(columns) : (columns.find((column) => column.cid === indexed)?.type ?? null);
  }

  /** A table's columns with the index a Column opcode uses for each (virtual generated columns are not stored). */
  #columns(table: string): { cid: number; stored: number; type: string | null; pk: boolean }[] {
    const rows = this.db.exec('SELECT cid, type, pk, hidden FROM pragma_table_xinfo(?)', [table])[0]?.values ?? [];
    let stored = 0;
    return rows.map(([cid, type, pk, hidden]) => ({ cid: cid as number, stored: hidden === 2 ? -1 : stored++, type: (type as string) || null, pk: pk === 1 }));
  }
}

/** The rowid's declared type: its INTEGER PRIMARY KEY alias's, else INTEGER (as sqlite3_column_decltype says). */
function rowidType(columns: { type: string | null; pk: boolean }[]): string {
  const keys = columns.filter((column) => column.pk);
  return keys.length === 1 && keys[0]!.type?.toUpperCase() === 'INTEGER' ? keys[0]!.type : 'INTEGER';
}
