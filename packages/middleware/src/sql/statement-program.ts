import type { Database, Statement } from 'sql.js';

/** What a statement's compiled program (its EXPLAIN listing) says it may do. */
export interface ProgramFacts {
  /** What sqlite3_stmt_readonly would answer false for: it may change a database file. */
  canWrite: boolean;
  /** It opens a write transaction on the TEMP database (creates a TEMP table, view, index or trigger). */
  writesTemp: boolean;
}

/**
 * Opcodes that change a database without a write `Transaction` in the same program (VACUUM, journal mode) or
 * that only writes use — sqlite3_stmt_readonly's own list (vdbeaux.c resolveP2Values) plus schema opcodes.
 * Not Insert or IdxInsert: reads use them too, on ephemeral tables (DISTINCT, IN subqueries).
 */
const writingOpcodes = new Set(['Vacuum', 'JournalMode', 'Checkpoint', 'VUpdate', 'VCreate', 'VDestroy', 'SetCookie', 'CreateBtree', 'Destroy', 'ParseSchema']);

/** Database index SQLite gives TEMP (0 is main; ATTACH is refused, so there is no other). */
const TEMP_DATABASE = 1;

/**
 * Reads what a statement may do from SQLite's own compilation of it: sqlite3_stmt_readonly and the
 * authorizer are not exported by sql.js, and the program is what both of them read. `sql` must be exactly
 * one statement starting at its first token (no EXPLAIN prefix of its own). When its EXPLAIN does not
 * compile, the statement is assumed to write (its own compilation will report the error).
 *
 * @example
 * inspectProgram(db, 'CREATE TEMP VIEW v AS SELECT 1') // { canWrite: true, writesTemp: true }
 */
export function inspectProgram(db: Database, sql: string): ProgramFacts {
  let plan: Statement | undefined;
  const facts: ProgramFacts = { canWrite: false, writesTemp: false };
  try {
    plan = db.prepare(`EXPLAIN ${sql}`);
    while (plan.step()) {
      const [, opcode, p1, p2] = plan.get();
      if (opcode === 'Transaction' && p2 !== 0) {
        facts.canWrite = true;
        if (p1 === TEMP_DATABASE) facts.writesTemp = true;
      } else if (writingOpcodes.has(opcode as string)) facts.canWrite = true;
    }
    return facts;
  } catch {
    return { canWrite: true, writesTemp: false };
  } finally {
    plan?.free();
  }
}
