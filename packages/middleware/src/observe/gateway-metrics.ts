import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { microsToUsd } from '../policy/index.js';
import { LabelledChildren } from './labelled-children.js';
import type { RequestObservation } from './request-observation.js';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const GROUP_SIZES = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const CHECKPOINT_BYTES = [65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864, 268_435_456, 1_073_741_824];
const FAST_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/**
 * Tollgate's Prometheus metrics, in a registry of their own per gateway instance (two gateways in one
 * process never mix counts, and the host's global registry is left alone). Every label comes from a
 * bounded set: routes, configured organizations, catalog aliases, provider names, the error catalog's
 * kinds and HTTP statuses. Key ids, model names a client typed and messages are never labels.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({ name: 'tollgate_requests_total', help: 'Requests answered, by endpoint, alias, provider, status and denial reason', labelNames: ['endpoint', 'alias', 'provider', 'status', 'reason'], registers: [this.registry] });
  readonly duration = new Histogram({ name: 'tollgate_request_duration_seconds', help: 'Time from request to the end of its answer', labelNames: ['endpoint', 'alias'], buckets: SECONDS, registers: [this.registry] });
  readonly firstByte = new Histogram({ name: 'tollgate_time_to_first_byte_seconds', help: 'Time from request to the first byte of a successful model answer', labelNames: ['endpoint', 'alias'], buckets: SECONDS, registers: [this.registry] });
  readonly attempts = new Counter({ name: 'tollgate_upstream_attempts_total', help: 'Calls made to providers, first tries and retries', labelNames: ['provider'], registers: [this.registry] });
  readonly retries = new Counter({ name: 'tollgate_upstream_retries_total', help: 'Calls to a provider that repeated a failed one on the same route', labelNames: ['provider'], registers: [this.registry] });
  readonly failovers = new Counter({ name: 'tollgate_upstream_failovers_total', help: 'Moves to an alias’s next route after the previous one failed', labelNames: ['alias'], registers: [this.registry] });
  readonly tokens = new Counter({ name: 'tollgate_tokens_total', help: 'Metered tokens, by organization, alias and direction (input|output|cached: the part of input read from a prompt cache)', labelNames: ['org', 'alias', 'direction'], registers: [this.registry] });
  readonly cost = new Counter({ name: 'tollgate_cost_usd_total', help: 'Metered usage at the alias’s list price (USD), by organization and alias', labelNames: ['org', 'alias'], registers: [this.registry] });
  readonly openStreams = new Gauge({ name: 'tollgate_open_streams', help: 'Streams being relayed now', registers: [this.registry] });
  readonly slots = new Gauge({ name: 'tollgate_concurrency_slots_in_use', help: 'Admitted, not yet settled requests (concurrency slots held) on this instance', labelNames: ['org'], registers: [this.registry] });
  readonly policyLatency = new Histogram({ name: 'tollgate_policy_admit_duration_seconds', help: 'Time the policy store took to admit or refuse', buckets: FAST_SECONDS, registers: [this.registry] });
  readonly policyFailures = new Counter({ name: 'tollgate_policy_failures_total', help: 'Admissions refused because the policy store could not answer (503 policy_unavailable)', registers: [this.registry] });
  readonly sqlRequests = new Counter({ name: 'tollgate_sql_requests_total', help: 'SQL endpoint requests by status', labelNames: ['status'], registers: [this.registry] });
  readonly sqlDuration = new Histogram({ name: 'tollgate_sql_request_duration_seconds', help: 'SQL endpoint request durations', buckets: FAST_SECONDS, registers: [this.registry] });
  readonly sqlCommitGroups = new Histogram({ name: 'tollgate_sql_commit_group_size', help: 'Write requests made durable by one journal write (group commit), by file database', labelNames: ['database'], buckets: GROUP_SIZES, registers: [this.registry] });
  readonly sqlJournalBytes = new Gauge({ name: 'tollgate_sql_journal_bytes', help: 'Size of the open journal segment, by file database (0 right after a checkpoint)', labelNames: ['database'], registers: [this.registry] });
  readonly sqlCheckpointBytes = new Histogram({ name: 'tollgate_sql_checkpoint_bytes', help: 'Size of each journal segment folded into its database file, by file database', labelNames: ['database'], buckets: CHECKPOINT_BYTES, registers: [this.registry] });

  // Children memoized by label values: the per-request calls below skip prom-client's label hashing.
  readonly #requests = new LabelledChildren((...v) => this.requests.labels(...v));
  readonly #duration = new LabelledChildren((...v) => this.duration.labels(...v));
  readonly #firstByte = new LabelledChildren((...v) => this.firstByte.labels(...v));
  readonly #tokens = new LabelledChildren((...v) => this.tokens.labels(...v));
  readonly #cost = new LabelledChildren((...v) => this.cost.labels(...v));
  readonly #attempts = new LabelledChildren((...v) => this.attempts.labels(...v));
  readonly #slots = new LabelledChildren((...v) => this.slots.labels(...v));

  attempt(provider: string, retry: boolean): void {
    this.#attempts.of(provider).inc();
    if (retry) this.retries.inc({ provider });
  }

  slotTaken(org: string): void {
    this.#slots.of(org).inc();
  }

  slotReleased(org: string): void {
    this.#slots.of(org).dec();
  }

  /** Counts a finished request: called once per request, after its answer ended. */
  record(observation: RequestObservation, status: number): void {
    const { endpoint, alias, org } = observation;
    const seconds = observation.elapsedMs() / 1000;
    this.#requests.of(endpoint, alias, observation.provider, status, observation.reason).inc();
    this.#duration.of(endpoint, alias).observe(seconds);
    if (observation.firstByteMs >= 0 && status < 400) this.#firstByte.of(endpoint, alias).observe(observation.firstByteMs / 1000);
    if (observation.inputTokens > 0) this.#tokens.of(org, alias, 'input').inc(observation.inputTokens);
    if (observation.outputTokens > 0) this.#tokens.of(org, alias, 'output').inc(observation.outputTokens);
    if (observation.cachedInputTokens > 0) this.#tokens.of(org, alias, 'cached').inc(observation.cachedInputTokens);
    if (observation.costMicros > 0) this.#cost.of(org, alias).inc(microsToUsd(observation.costMicros));
    if (observation.admitMs >= 0) this.policyLatency.observe(observation.admitMs / 1000);
    if (observation.reason === 'policy_unavailable') this.policyFailures.inc();
    if (endpoint === SQL_ENDPOINT) {
      this.sqlRequests.inc({ status });
      this.sqlDuration.observe(seconds);
    }
  }

  /**
   * The hooks a file database's page journal calls (database names come from the config: bounded). Read-only:
   * they count, and change nothing the journal does.
   */
  journalHooks(database: string): { onGroupCommit(commits: number, segmentBytes: number): void; onCheckpoint(segmentBytes: number): void } {
    const groups = this.sqlCommitGroups.labels(database);
    const journal = this.sqlJournalBytes.labels(database);
    const checkpoints = this.sqlCheckpointBytes.labels(database);
    return {
      onGroupCommit(commits, segmentBytes) {
        groups.observe(commits);
        journal.set(segmentBytes);
      },
      // A checkpoint starts right after the next segment opened, empty.
      onCheckpoint(segmentBytes) {
        checkpoints.observe(segmentBytes);
        journal.set(0);
      },
    };
  }

  /** The exposition text Prometheus scrapes. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }
}

const SQL_ENDPOINT = '/api/sql/query';
