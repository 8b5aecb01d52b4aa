// A pause that ends early when its stop signal aborts, for the many loops that share one signal (every projection
// catching up alone backs off on its runner's; every worker loop waits on the workers'). Each pause adding its own
// 'abort' listener put one per waiting loop on the signal: past ten at once (a second projector moving the
// checkpoints sends every projection to back off) Node warned of a leak (MaxListenersExceededWarning).
// Here a signal gets one listener, however many pause on it, that wakes them all.

/** The pauses waiting on each signal, woken together by its one listener. */
const sleepers = new WeakMap<AbortSignal, Set<() => void>>();

/** Resolves after `ms`, or as soon as `signal` aborts (at once if it has); never rejects. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  let waiting = sleepers.get(signal);
  if (!waiting) {
    const set = new Set<() => void>();
    sleepers.set(signal, set);
    signal.addEventListener('abort', () => {
      for (const wake of set) wake();
    }, { once: true });
    waiting = set;
  }
  const set = waiting;
  return new Promise<void>((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      set.delete(wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    set.add(wake);
  });
}

/** How many pauses wait on `signal` now (tests). */
export function pausesOn(signal: AbortSignal): number {
  return sleepers.get(signal)?.size ?? 0;
}
