import { hostname } from 'node:os';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { LedgerLine } from './journal-record.js';
import { LedgerFiles, readLedger } from './ledger-files.js';
import type { OrgKeys } from './redis-keys.js';

/** Where exported lines go: LedgerFiles, whose `append` resolves once the lines are durable. */
export interface LedgerSink {
  append(lines: readonly LedgerLine[]): Promise<void>;
  close(): Promise<void>;
}

export interface LedgerExportOptions {
  redis: Redis | Cluster;
  /** The organizations whose streams this instance exports, and their keys. */
  organizations: readonly string[];
  keysOf(org: string): OrgKeys;
  /** The ledger directory: where lines are written and, after a restart, read back to skip what is there. */
  dir: string;
  maxBytes?: number | undefined;
  everyMs: number;
  logger: Pick<Logger, 'error'>;
  /** Opens the sink; LedgerFiles in `dir` by default. */
  openSink?: () => Promise<LedgerSink>;
}

const BATCH = 1_000;

/**
 * Moves the organizations' ledger streams out of Redis into ledger files, so Redis keeps only what is not
 * exported yet (issue 14): read a batch from the stream's start, append it to the files (fsynced before
 * `append` resolves), and only then trim the stream up to the last exported entry (`XTRIM MINID`).
 * Nothing is lost if the process dies anywhere in between: an entry leaves Redis only once it is durable
 * in a file. A death between the append and the trim leaves those entries in both; so the first export of
 * each organization after a start (or after any failure) reads back this directory's lines from the
 * batch's oldest instant and skips the settlement ids already there, and an export is never repeated.
 *
 * One exporter exports an organization at a time: a lease in the organization's slot, held by this host
 * and directory and renewed by each export (so a restart on the same files resumes at once; another
 * instance takes over once it lapses). If an instance dies between append and trim and never comes back,
 * the instance that takes over exports that batch (at most 1,000 entries) again into its own files, under
 * the same settlement ids: duplicates across two instances' files are possible then, losses are not.
 *
 * @example
 * const exporter = new RedisLedgerExport({ redis, organizations: ['acme'], keysOf, dir: 'data/ledger', everyMs: 1000, logger });
 * exporter.start();
 * await exporter.close();
 */
export class RedisLedgerExport {
  /** The lease holder's name: this host and directory, so a restart on the same files resumes at once. */
  readonly #holder: string;
  readonly #leaseMs: number;
  /** Organizations exported since the start with nothing failing since: no read-back needed. */
  readonly #verified = new Set<string>();
  #sink: Promise<LedgerSink> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(private readonly options: LedgerExportOptions) {
    this.#leaseMs = Math.max(10_000, 5 * options.everyMs);
    this.#holder = `${hostname()}:${options.dir}`;
  }

  start(): void {
    this.#schedule();
  }

  /** One pass over every organization; resolves when it is done (or failed, which the next pass retries). */
  exportNow(): Promise<void> {
    this.#running ??= this.#pass().finally(() => (this.#running = undefined));
    return this.#running;
  }

  /** Stops, after a last pass, so a graceful stop leaves nothing behind that it could have exported. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#running;
    await this.exportNow();
    const sink = await this.#sink?.catch(() => undefined);
    await sink?.close();
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => void this.exportNow().finally(() => this.#schedule()), this.options.everyMs);
    this.#timer.unref();
  }

  async #pass(): Promise<void> {
    for (const org of this.options.organizations) {
      try {
        while ((await this.#exportBatch(org)) === BATCH);
      } catch (error) {
        this.#verified.delete(org);
        // Redis away is expected now and then (the next pass retries); anything else is worth a line.
        if (!isConnectionError(error)) this.options.logger.error(`ledger export: ${org} stays in Redis for now`, error);
      }
    }
  }

  /** Exports one batch of an organization's stream; answers how many entries it held. */
  async #exportBatch(org: string): Promise<number> {
    const { redis } = this.options;
    const keys = this.options.keysOf(org);
    if (!(await this.#holdLease(keys.exporter))) return 0;
    const entries = await redis.xrange(keys.ledger, '-', '+', 'COUNT', BATCH);
    if (entries.length === 0) return 0;
    const lines = entries.flatMap(([, fields]) => ledgerLineOf(fields));
    const fresh = this.#verified.has(org) ? lines : await this.#notYetOnFile(org, lines);
    if (fresh.length > 0) await (await this.#openSink()).append(fresh);
    this.#verified.add(org);
    // Everything up to the last entry read is on file now: only now may Redis forget it.
    await redis.xtrim(keys.ledger, 'MINID', successorOf(entries[entries.length - 1]![0]));
    return entries.length;
  }

  /** After a start or a failure: the lines whose settlement ids this directory does not hold yet. */
  async #notYetOnFile(org: string, lines: LedgerLine[]): Promise<LedgerLine[]> {
    if (lines.length === 0) return lines;
    let from = Infinity;
    for (const line of lines) from = Math.min(from, line.at);
    const onFile = new Set<string>();
    for await (const line of readLedger(this.options.dir, { org, from })) onFile.add(line.id);
    return onFile.size === 0 ? lines : lines.filter((line) => !onFile.has(line.id));
  }

  #openSink(): Promise<LedgerSink> {
    this.#sink ??= (this.options.openSink ?? (() => LedgerFiles.open({ dir: this.options.dir, ...(this.options.maxBytes === undefined ? {} : { maxBytes: this.options.maxBytes }) })))();
    this.#sink.catch(() => (this.#sink = undefined));
    return this.#sink;
  }

  async #holdLease(key: string): Promise<boolean> {
    const held = (await this.options.redis.eval(LEASE_SCRIPT, 1, key, this.#holder, this.#leaseMs)) as number;
    return held === 1;
  }
}

/** KEYS: lease. ARGV: holder leaseMs. Takes the lease if free, renews it if ours. */
const LEASE_SCRIPT = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

/** A stream entry as the settle script wrote it (redis-scripts.ts), as a ledger line; other entries are none. */
function ledgerLineOf(fields: string[]): LedgerLine[] {
  const value: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) value[fields[i]!] = fields[i + 1]!;
  if (value.t !== 'settle') return [];
  const line: LedgerLine = { t: 'settle', id: value.id ?? '', at: Number(value.at), org: value.org ?? '', keyId: value.keyId ?? '', alias: value.alias ?? '', in: Number(value.in), out: Number(value.out), included: Number(value.included), cost: Number(value.cost) };
  // Settlements spooled by a version without request ids wrote none.
  if (value.requestId) line.requestId = value.requestId;
  if (value.route) line.route = value.route;
  // As the memory store writes them: only when there were any (older entries have none).
  if (Number(value.cached) > 0) line.cached = Number(value.cached);
  if (Number(value.written) > 0) line.written = Number(value.written);
  return [line];
}

/** The smallest stream id after `id` (`ms-seq`): XTRIM MINID keeps entries from there on. */
function successorOf(id: string): string {
  const [ms, seq] = id.split('-') as [string, string];
  return `${ms}-${BigInt(seq) + 1n}`;
}

function isConnectionError(error: unknown): boolean {
  return error instanceof Error && /enableOfflineQueue|Connection is closed|ECONNREFUSED|Command timed out|isn't ready/i.test(error.message);
}
