// The process's foreground work: operation requests being served. Background pushes (the SSE fan-out) yield
// to it, so a search does not wait behind a thousand subscribers' writes; streams themselves are not counted.

/** Counts operation requests in flight and tells background work when there are none. */
export class Foreground {
  private inFlight = 0;
  private waiters: (() => void)[] = [];

  /** A request started; call the returned function once, when it ends. */
  enter(): () => void {
    this.inFlight++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      if (--this.inFlight === 0) this.wakeAll();
    };
  }

  /** Whether a request is being served. */
  get busy(): boolean {
    return this.inFlight > 0;
  }

  /** Resolves once no request is in flight, or after `ms`, whichever comes first. */
  idle(ms: number): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve();
      }, ms);
      this.waiters.push(done);
    });
  }

  private wakeAll(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w();
  }
}

/** The process's foreground (one per process, as the fan-out is per process). */
export const foreground = new Foreground();
