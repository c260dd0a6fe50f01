import { channel } from 'node:diagnostics_channel';

/** One group commit of a journal or a ledger file: how many lines it carried, their bytes, its write + fdatasync time. */
export interface CommitEvent {
  file: string;
  lines: number;
  bytes: number;
  ms: number;
}

/** One snapshot of the memory store: the time from capture to the old journal's removal, and what it wrote and replaced. */
export interface SnapshotEvent {
  generation: number;
  /** Capturing and serializing the state (synchronous: the event loop is held this long). */
  captureMs: number;
  /** From capture to the directory fsync after the covered journal was removed (waits for in-flight settlements). */
  ms: number;
  snapshotBytes: number;
  /** Bytes of the journal generation the snapshot replaced. */
  journalBytes: number;
}

/**
 * What the memory store's files do, published on diagnostics channels for whoever listens (the soak
 * benchmark, an operator's own metrics): publishing with no subscriber costs one boolean check, so the
 * per-request path pays nothing when nobody listens. Names are stable.
 *
 * @example
 * import { subscribe } from 'node:diagnostics_channel';
 * subscribe('tollgate:store:snapshot', (event) => snapshots.push(event as SnapshotEvent));
 */
export const journalEvents = {
  journalCommit: channel('tollgate:store:journal-commit'),
  ledgerCommit: channel('tollgate:store:ledger-commit'),
  ledgerRotate: channel('tollgate:store:ledger-rotate'),
  snapshot: channel('tollgate:store:snapshot'),
};
