import { open } from 'node:fs/promises';
import { z } from 'zod';

const FORMAT = 'tollgate-memory-store';

const balances = z.object({
  walletMicros: z.number().int(),
  paymentMethod: z.boolean(),
  includedUsed: z.number().int().nonnegative(),
  resetAt: z.number().nullable(),
  requests: z.number().int().nonnegative(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Parts of inputTokens read from / written to a prompt cache (i17-billing); absent in older snapshots. */
  cachedInputTokens: z.number().int().nonnegative().default(0),
  cacheWriteTokens: z.number().int().nonnegative().default(0),
  costMicros: z.number().int(),
});

/** A key's totals and its budget period's spend (README "Per-key limits and budgets"); its windows are transient. */
const keyTotals = z.object({
  spentMicros: z.number().int(),
  budgetResetAt: z.number().nullable(),
  requests: z.number().int().nonnegative(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  costMicros: z.number().int(),
});

const snapshotSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(1),
  /** The first journal generation whose records come after this snapshot. */
  journal: z.number().int().positive(),
  at: z.number(),
  /** Every organization the store has opened, also ones the config no longer names (kept for their return). */
  orgs: z.record(z.string(), balances),
  /** Keys created through the store (config keys come from the config). */
  keys: z.array(z.object({ keyId: z.string(), org: z.string(), scopes: z.array(z.enum(['models', 'sql', 'sql:read'])), sha256: z.string() })),
  /** Key ids revoked through the store, config keys included. */
  revoked: z.array(z.string()),
  /** Per key id: totals and budget spend. Absent in snapshots written before per-key budgets. */
  keyStates: z.record(z.string(), keyTotals).default({}),
});

/** The memory store's compact state: what a start-up reads instead of the history. */
export type StoreSnapshot = z.infer<typeof snapshotSchema>;
/** The state part of a snapshot, as the store captures and restores it. */
export type SnapshotState = Pick<StoreSnapshot, 'orgs' | 'keys' | 'revoked' | 'keyStates'>;

/** One line of JSON, `format` first, so a file's first bytes tell a snapshot from an old-format journal. */
export function serializeSnapshot(journal: number, at: number, state: SnapshotState): string {
  const snapshot: StoreSnapshot = { format: FORMAT, version: 1, journal, at, orgs: state.orgs, keys: state.keys, revoked: state.revoked, keyStates: state.keyStates };
  return `${JSON.stringify(snapshot)}\n`;
}

/** A store file that cannot be what it should (cut short, overwritten): start-up refuses it with this message. */
export class StoreDamagedError extends Error {
  override readonly name = 'StoreDamagedError';
}

export function parseSnapshot(file: string, text: string): StoreSnapshot {
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    throw new StoreDamagedError(`${file} is not a readable Tollgate snapshot (not JSON); the file is damaged`);
  }
  const parsed = snapshotSchema.safeParse(json);
  if (!parsed.success) throw new StoreDamagedError(`${file} is not a readable Tollgate snapshot: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  return parsed.data;
}

/**
 * What the store file holds: a snapshot, an old-format journal (JSON lines of records, the store's only file
 * before snapshots; also an empty file), nothing yet, or anything else: a damaged file (cut short inside the
 * snapshot's header, zero-filled, overwritten), never to be taken for a journal.
 */
export async function storeFileKind(file: string): Promise<'snapshot' | 'journal' | 'missing' | 'damaged'> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const head = Buffer.alloc(64);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const text = head.toString('utf8', 0, bytesRead);
    if (text.startsWith(`{"format":"${FORMAT}"`)) return 'snapshot';
    // The old store wrote each record as JSON.stringify of an object whose first field is its type, `t`.
    return bytesRead === 0 || text.startsWith('{"t":"') ? 'journal' : 'damaged';
  } finally {
    await handle.close();
  }
}
