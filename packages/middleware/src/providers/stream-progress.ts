import type { WireFamily } from '@tollgate/wire-families';
import { IncompleteStream, type ClientEvent, type SeenUsage, type StreamTranslator } from './codec.js';

const noUsage: SeenUsage = { inputTokens: 0, outputTokens: 0, reported: false };

/**
 * The state every relayed stream keeps, read through its family's table (@tollgate/wire-families): the text
 * generated so far (metered when usage is missing), the usage last reported, and whether the normal end came.
 *
 * @example
 * const progress = new StreamProgress(wireFamilies.chat, chatUsage);
 * progress.see(chunk); progress.finished // true once a finish_reason came
 */
export class StreamProgress<Event, Usage> {
  text = '';
  usage: SeenUsage = noUsage;
  finished = false;

  constructor(
    private readonly family: WireFamily<Event, Usage, never>,
    /** The family's usage as metered, given the usage seen before (a later event may revise part of it). */
    private readonly meteredUsage: (usage: Usage, earlier: SeenUsage) => SeenUsage,
  ) {}

  see(event: Event): void {
    this.text += this.family.generatedTextOf(event);
    const usage = this.family.usageOf(event);
    if (usage) this.usage = this.meteredUsage(usage, this.usage);
    if (this.family.isNormalEnd(event)) this.finished = true;
  }
}

/**
 * A relayed stream whose whole state is its progress: it ended normally only if its family's normal end
 * came, and its usage and text are what the progress saw. Subclasses decode, rename and filter events.
 */
export abstract class ProgressRelay<Event, Usage> implements StreamTranslator {
  protected readonly progress: StreamProgress<Event, Usage>;

  constructor(
    family: WireFamily<Event, Usage, never>,
    meteredUsage: (usage: Usage, earlier: SeenUsage) => SeenUsage,
    /** Why a stream that stopped before its normal end did not finish. */
    private readonly unfinished: string,
    /** What the client gets after the last relayed event (chat's `[DONE]`). */
    private readonly closing: readonly ClientEvent[] = [],
  ) {
    this.progress = new StreamProgress(family, meteredUsage);
  }

  abstract push(event: { event?: string; data: string }): ClientEvent[];

  end(): ClientEvent[] {
    if (!this.progress.finished) throw new IncompleteStream(this.unfinished);
    return this.closing.slice();
  }

  usage(): SeenUsage {
    return this.progress.usage;
  }

  text(): string {
    return this.progress.text;
  }
}
