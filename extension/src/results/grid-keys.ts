/** A cell of the grid in view coordinates: the row as shown (sorted, filtered) and the column. */
export interface GridCell {
  row: number;
  column: number;
}

interface GridBounds {
  rows: number;
  columns: number;
  /** Rows a PageUp/PageDown moves: about one screenful. */
  page: number;
}

/** Where each navigation key takes the cursor, as in spreadsheets; Ctrl+Home/End go to the first/last row. */
const moves: Record<string, (at: GridCell, bounds: GridBounds, ctrl: boolean) => GridCell> = {
  ArrowUp: (at) => ({ row: at.row - 1, column: at.column }),
  ArrowDown: (at) => ({ row: at.row + 1, column: at.column }),
  ArrowLeft: (at) => ({ row: at.row, column: at.column - 1 }),
  ArrowRight: (at) => ({ row: at.row, column: at.column + 1 }),
  PageUp: (at, bounds) => ({ row: at.row - bounds.page, column: at.column }),
  PageDown: (at, bounds) => ({ row: at.row + bounds.page, column: at.column }),
  Home: (at, _bounds, ctrl) => ({ row: ctrl ? 0 : at.row, column: 0 }),
  End: (at, bounds, ctrl) => ({ row: ctrl ? bounds.rows - 1 : at.row, column: bounds.columns - 1 }),
};

/**
 * The cell a key moves the cursor to, kept inside the grid; undefined for a key that is not a move (or an
 * empty grid). With no cursor yet, any move starts at the first cell.
 *
 * @example moveCell({ row: 0, column: 0 }, 'ArrowDown', { rows: 3, columns: 2, page: 10 }) // { row: 1, column: 0 }
 * @example moveCell({ row: 2, column: 1 }, 'PageDown', { rows: 3, columns: 2, page: 10 }) // { row: 2, column: 1 }
 */
export function moveCell(at: GridCell | undefined, key: string, bounds: GridBounds, ctrl = false): GridCell | undefined {
  const move = moves[key];
  if (!move || bounds.rows === 0 || bounds.columns === 0) return undefined;
  if (!at) return { row: 0, column: 0 };
  const next = move(at, bounds, ctrl);
  return { row: clamp(next.row, bounds.rows - 1), column: clamp(next.column, bounds.columns - 1) };
}

function clamp(value: number, max: number): number {
  return Math.min(max, Math.max(0, value));
}
