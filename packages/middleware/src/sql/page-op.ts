/**
 * One change SQLite made to its database file: bytes written at an offset, or the file cut (or grown) to a
 * size. A request's changes are the list of these, in the order SQLite made them; replaying them in order
 * on the file as it was gives the file as it is.
 *
 * @example
 * const ops: PageOp[] = [{ offset: 0, data: page1 }, { truncate: 8192 }];
 */
export type PageOp = { offset: number; data: Uint8Array } | { truncate: number };

export function isTruncate(op: PageOp): op is { truncate: number } {
  return 'truncate' in op;
}
