// Group commit's queue: items that arrive while a batch is being handled form the next batch, one batch in
// flight at a time. Used by the commands' one-event appends and by analytics events.

/** An item waiting in a batch, and how its caller is answered. */
export interface Pending<T, R> {
  item: T;
  resolve(result: R): void;
  reject(err: unknown): void;
}

/** Hands batches of at most `max` items to `handle`, which answers each; a batch it throws on fails every item it left unanswered. */
export class InFlightBatch<T, R> {
  private queue: Pending<T, R>[] = [];
  private busy = false;

  constructor(
    private readonly handle: (batch: Pending<T, R>[]) => Promise<void>,
    private readonly max: number,
  ) {}

  /** Resolves with what `handle` answers for `item`, in the batch after the one in flight (or at once when none is). */
  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.busy) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.busy = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.max);
        // A promise settles once: rejecting the whole batch leaves the items already answered as they are.
        await this.handle(batch).catch((err: unknown) => batch.forEach((p) => p.reject(err)));
        // The callers just answered come back with their next items a few promise hops later, after this loop would
        // have taken the queue: with 16 callers the batches went 1, 15, 1, 15 (two commits per round instead of one,
        // half a prepared INSERT's rate when commits wait for the disk; issue 31). One turn of the event loop lets them
        // all in. Not after a batch of one: nobody else is coming back, and a lone caller must not wait.
        if (batch.length > 1) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.busy = false;
    }
  }
}
