import type { WireFamily } from '@tollgate/wire-families';
import type { SeenUsage } from './codec.js';

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
