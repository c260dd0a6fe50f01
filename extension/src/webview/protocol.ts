import type { Explanation } from '../chat/explain-error.js';
import type { Recovery } from '../chat/retry-policy.js';
import type { ExportFormat } from '../sql/format-results.js';

/** What the results view shows. Rows travel whole; the view pages through them. */
export type ResultsState =
  | { kind: 'running'; label: string; db: string }
  | { kind: 'table'; label: string; db: string; elapsedMs: number; columns: string[]; rows: unknown[][] }
  | { kind: 'ok'; label: string; db: string; elapsedMs: number; affectedRows: number | undefined }
  | { kind: 'error'; label: string; db: string; elapsedMs: number; code: string; message: string }
  | { kind: 'cancelled'; label: string; db: string };

export type ToResultsView = { type: 'show'; state: ResultsState; pageSize: number };
export type FromResultsView = { type: 'export'; format: ExportFormat; to: 'clipboard' | 'file' } | { type: 'ready' };

export type ToChatView =
  | { type: 'models'; models: string[]; selected: string | undefined }
  | { type: 'user'; id: number; html: string; queued?: boolean }
  | { type: 'dequeued'; id: number }
  | { type: 'assistant'; id: number; html: string; done: boolean; incomplete?: boolean; stopped?: boolean }
  | { type: 'error'; id: number; explanation: Explanation; recovery?: Recovery }
  | { type: 'busy'; busy: boolean }
  | { type: 'clear' };

export type FromChatView =
  | { type: 'ready' }
  | { type: 'send'; text: string; model: string }
  | { type: 'stop' }
  | { type: 'retry'; automatic?: boolean }
  | { type: 'new' }
  | { type: 'action'; action: NonNullable<Explanation['action']> };
