/** SQLite's storage classes of a non-NULL value (https://sqlite.org/datatype3.html §2). */
export type StorageClass = 'integer' | 'real' | 'text' | 'blob';

/**
 * The type of one result column, beside `column_names` (README "Typed values"). `declared` is the column's
 * declared type when it comes straight from a table column (SQLite's sqlite3_column_decltype), else null.
 * `storage` is the storage class every non-NULL value of the column has in this answer, null when it has
 * none (no rows, or only NULLs), or `mixed`, and then `storage_by_row` gives each row's (null for NULL) —
 * so a client tells a BLOB (base64 text on the wire) from TEXT, and an integer sent as a string (beyond
 * 2^53) from a numeric string.
 */
export interface ColumnType {
  declared: string | null;
  storage: StorageClass | 'mixed' | null;
  storage_by_row?: (StorageClass | null)[];
}

/** sqlite3_column_type numbers → storage class; 5 (NULL) is absent. */
const storageOf: Record<number, StorageClass> = { 1: 'integer', 2: 'real', 3: 'text', 4: 'blob' };

/**
 * Collects the storage classes of a table's columns value by value.
 *
 * @example
 * const classes = new ColumnClasses(['INTEGER', null]);
 * classes.add(0, 1, []); classes.add(1, 4, []);
 * classes.types() // [{ declared: 'INTEGER', storage: 'integer' }, { declared: null, storage: 'blob' }]
 */
export class ColumnClasses {
  readonly #columns: ColumnType[];

  constructor(declared: readonly (string | null)[]) {
    this.#columns = declared.map((type) => ({ declared: type, storage: null }));
  }

  /**
   * Records a value of sqlite3_column_type `type` in `column`. `rowsBefore` are the rows already kept (the
   * per-row list is filled from them when the column turns mixed), or null for a streamed answer, whose
   * rows are gone: it only says `mixed`.
   */
  add(column: number, type: number, rowsBefore: readonly unknown[][] | null): void {
    const entry = this.#columns[column]!;
    const storage = storageOf[type] ?? null;
    if (entry.storage_by_row) return void entry.storage_by_row.push(storage);
    if (storage === null || entry.storage === storage || entry.storage === 'mixed') return;
    if (entry.storage === null) return void (entry.storage = storage);
    // Until now every non-NULL value had one class, and a NULL is the only value sent as JSON null.
    const before = entry.storage;
    entry.storage = 'mixed';
    if (rowsBefore) entry.storage_by_row = [...rowsBefore.map((row) => (row[column] === null ? null : before)), storage];
  }

  types(): ColumnType[] {
    return this.#columns;
  }
}

/**
 * `column_types` as the worker posts them: `[declared, storage, declared, storage, …]`. Structured clone writes
 * every key of every object, so N small objects cost ~3–4 µs of a ~24 µs point select (measured in-process,
 * README "Typed values"); a flat array of strings costs a fraction, and the main thread rebuilds the objects.
 * Null when a column is mixed per row (`storage_by_row`): those go as objects.
 */
export type PackedColumnTypes = (string | null)[];

export function packColumnTypes(types: readonly ColumnType[]): PackedColumnTypes | null {
  const packed: PackedColumnTypes = new Array(types.length * 2);
  for (let column = 0; column < types.length; column++) {
    const type = types[column]!;
    if (type.storage_by_row) return null;
    packed[column * 2] = type.declared;
    packed[column * 2 + 1] = type.storage;
  }
  return packed;
}

export function unpackColumnTypes(packed: PackedColumnTypes): ColumnType[] {
  const types: ColumnType[] = new Array(packed.length / 2);
  for (let column = 0; column < types.length; column++) {
    types[column] = { declared: packed[column * 2]!, storage: packed[column * 2 + 1] as ColumnType['storage'] };
  }
  return types;
}
