import type { Database, SqlJsStatic, Statement } from 'sql.js';

/** SQLite's fundamental datatypes as sqlite3_column_type numbers them. */
export const SQLITE_TEXT = 3;
export const SQLITE_NULL = 5;
export const SQLITE_BLOB = 4;

/**
 * Direct access to sqlite3_column_type and sqlite3_column_bytes for a sql.js Statement, which exposes
 * neither: a value's size must be known before sql.js copies it into JavaScript (`zeroblob(300000000)` is
 * 300 MB only once read). sql.js's build minifies the field holding the statement's pointer, so it is found
 * by what it does — the one own field whose value sqlite3_column_count answers correctly for two
 * statements of different widths — once per worker; a build where none does fails the worker's start.
 *
 * @example
 * const columns = SqliteColumns.discover(SQL, db);
 * columns.bytes(columns.pointer(statement), 0) // 300000000 for SELECT zeroblob(300000000), without allocating it
 */
export class SqliteColumns {
  private constructor(
    private readonly module: NativeColumns,
    private readonly pointerField: string,
  ) {}

  static discover(SQL: SqlJsStatic, db: Database): SqliteColumns {
    const module = SQL as unknown as NativeColumns;
    const narrow = db.prepare('SELECT 1, 2, 3');
    const wide = db.prepare('SELECT 1, 2, 3, 4, 5');
    try {
      const field = Object.keys(narrow).find((key) => {
        const a = (narrow as unknown as Record<string, unknown>)[key];
        const b = (wide as unknown as Record<string, unknown>)[key];
        if (typeof a !== 'number' || typeof b !== 'number' || a === 0 || a === b) return false;
        try {
          return module._sqlite3_column_count(a) === 3 && module._sqlite3_column_count(b) === 5;
        } catch {
          return false; // not a pointer: reading through it trapped
        }
      });
      if (!field) throw new Error('This sql.js build does not expose a statement pointer Tollgate can find; the SQL endpoint cannot bound result sizes');
      return new SqliteColumns(module, field);
    } finally {
      narrow.free();
      wide.free();
    }
  }

  /** The statement's sqlite3_stmt pointer, for `type` and `bytes` (read once per statement run). */
  pointer(statement: Statement): number {
    return (statement as unknown as Record<string, number>)[this.pointerField]!;
  }

  /** sqlite3_column_type of the current row: 1 INTEGER, 2 FLOAT, 3 TEXT, 4 BLOB, 5 NULL. */
  type(pointer: number, column: number): number {
    return this.module._sqlite3_column_type(pointer, column);
  }

  /** Bytes of a TEXT (UTF-8) or BLOB value, read without materialising it. Call it only for those two types. */
  bytes(pointer: number, column: number): number {
    return this.module._sqlite3_column_bytes(pointer, column);
  }
}

interface NativeColumns {
  _sqlite3_column_count(statement: number): number;
  _sqlite3_column_type(statement: number, column: number): number;
  _sqlite3_column_bytes(statement: number, column: number): number;
}
