/** Bytes of NDJSON the worker gathers before handing them to the main thread. */
const CHUNK_CHARS = 64 * 1024;
/** How long one wait for credit lasts; the loop around it lets a terminate() from the main thread land. */
const WAIT_SLICE_MS = 50;

/**
 * The worker's side of a streamed answer: lines are gathered into chunks of about 64 KiB, and a chunk is
 * posted only while the main thread has credit left for it (`credit[0]`). The main thread gives credit back
 * as the socket takes each chunk, so a slow client blocks this (synchronous) worker in Atomics.wait instead
 * of filling memory: what is in flight is bounded by the initial credit × the chunk size.
 *
 * @example
 * const stream = new RowStream(credit, (text) => parentPort!.postMessage({ kind: 'rows', id, text }));
 * stream.line('[1,"a"]'); stream.flush();
 */
export class RowStream {
  #pending = '';

  constructor(
    private readonly credit: Int32Array,
    private readonly post: (text: string) => void,
  ) {}

  line(json: string): void {
    this.#pending += json + '\n';
    if (this.#pending.length >= CHUNK_CHARS) this.flush();
  }

  flush(): void {
    if (this.#pending === '') return;
    while (Atomics.load(this.credit, 0) <= 0) Atomics.wait(this.credit, 0, Atomics.load(this.credit, 0), WAIT_SLICE_MS);
    Atomics.sub(this.credit, 0, 1);
    this.post(this.#pending);
    this.#pending = '';
  }
}
