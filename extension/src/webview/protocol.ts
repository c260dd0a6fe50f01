import type { Explanation } from '../chat/explain-error.js';
import type { ModelGroup } from '../chat/model-groups.js';
import type { Recovery } from '../chat/retry-policy.js';
import type { SqlColumnType } from '@tollgate/client';

/** A value's storage class as `column_types.storage_by_row` names it. */
export type SqlStorage = NonNullable<SqlColumnType['storage_by_row']>[number];
import type { ExportFormat } from '../sql/format-results.js';

/**
 * One statement's answer inside a run. The host keeps every row; a run posted to the view carries the first
 * chunk and `totalRows`, and the view asks for the rest chunk by chunk (results/row-chunks.ts).
 */
export type StatementOutcome = { kind: 'table'; columns: string[]; types?: SqlColumnType[]; rows: unknown[][]; totalRows?: number } | { kind: 'ok'; affectedRows: number | undefined };

/** A statement of a run: its SQL (as written), the line it starts on, and what it answered. */
export interface StatementView {
  sql: string;
  line?: number;
  outcome: StatementOutcome;
  /** Its place in the run, when the run is posted with only some of its statements (results/row-chunks.ts). */
  index?: number;
}

/**
 * One run as the results view shows it. `elapsedMs` is the time the run executed, never the time it
 * waited behind another run (`waitedMs`), which is shown apart (issue 18 #4).
 */
export type ResultsState = { id: number; label: string; db: string; /** Brought back after a window reload, rows cut to the first chunk. */ restored?: boolean } & (
  | { kind: 'queued'; behind: string }
  | { kind: 'running'; waitedMs?: number }
  | { kind: 'done'; elapsedMs: number; waitedMs?: number; statements: StatementView[]; /** When `statements` holds only some of them. */ totalStatements?: number }
  | { kind: 'error'; elapsedMs: number; waitedMs?: number; code: string; message: string; statementLine?: number }
  | { kind: 'cancelled' }
);

/** The runs kept (newest first): a later run never hides an earlier one's error, it gets its own tab. */
export type ToResultsView =
  | { type: 'show'; runs: ResultsState[]; selected: number }
  /** A chunk of a statement's rows, with each column's storage classes for them when it mixes classes. */
  | { type: 'rows'; run: number; statement: number; from: number; rows: unknown[][]; storageByRow: (SqlStorage[] | undefined)[]; end: boolean };
/**
 * A view's first message. `load` is the load it belongs to (the page's `data-load`): a panel whose HTML was set
 * again while an earlier document was still starting must not take that document's 'ready' for the new one's
 * (panel-assets.ts, loadWhenShown).
 */
export type ViewReady = { type: 'ready'; load: string };

export type FromResultsView =
  /** `order`: the source rows as the grid shows them (sorted, filtered); exports follow the view. */
  | { type: 'export'; run: number; statement: number; format: ExportFormat; to: 'clipboard' | 'file'; order?: number[] }
  | { type: 'copy'; text: string; cells: number }
  | { type: 'cancel'; run: number }
  /** The next chunk of a statement's rows, from row `from`. */
  | { type: 'rows'; run: number; statement: number; from: number }
  | ViewReady;

export type ToChatView =
  /** The picker's models grouped by provider, ready ones first; embedding models are not offered. */
  | { type: 'models'; groups: ModelGroup[]; selected: string | undefined }
  | { type: 'user'; id: number; html: string; queued?: boolean }
  | { type: 'dequeued'; id: number }
  | { type: 'assistant'; id: number; html: string; done: boolean; incomplete?: boolean; stopped?: boolean; /** Cut at this many characters (chat-session.ts MAX_REPLY_CHARS). */ tooLong?: number }
  | { type: 'error'; id: number; explanation: Explanation; recovery?: Recovery }
  | { type: 'busy'; busy: boolean }
  | { type: 'clear' }
  | { type: 'prefill'; text: string };

export type FromChatView =
  | ViewReady
  | { type: 'send'; text: string; model: string }
  | { type: 'stop' }
  | { type: 'retry'; automatic?: boolean }
  | { type: 'new' }
  | { type: 'history' }
  | { type: 'code'; action: 'copy' | 'insert' | 'run'; text: string; language: string }
  | { type: 'action'; action: NonNullable<Explanation['action']> };
