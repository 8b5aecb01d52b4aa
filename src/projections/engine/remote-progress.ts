// Read-your-writes in a process that does not run the projections (`serve`, `work`): another process's
// runner moves the checkpoints. One reader of projection_checkpoints per process serves every waiting
// request, and reads again when a projector says checkpoints moved (NOTIFY) or after a fallback poll.
import type { Knex } from 'knex';
import { type LogPosition, comparePositions } from '../../eventstore/port.ts';
import { ProjectionLagError, ReadModelFailedError } from '../../context.ts';
import { DbChannel } from '../../db-channel.ts';
import type { Db } from '../../db.ts';

interface Waiter {
  position: LogPosition;
  names: string[];
  deadline: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** Poll until a projector's NOTIFY has been heard: as often as each request polled on its own before. */
const POLL_MS = 10;
/** Once NOTIFYs arrive, polling only covers a lost one or a checkpoint stored without one. */
const NOTIFIED_POLL_MS = 100;

/** The channel on which runners say that stored checkpoints moved (one per process). */
export function progressChannel(db: Db): DbChannel {
  return new DbChannel(db, 'projection_checkpoints', 'checkpoints');
}

export class RemoteProgress {
  private readonly waiters = new Set<Waiter>();
  private loop: Promise<void> | null = null;
  private signalled = false;
  /** A projector's NOTIFY reached this process: they flow (a runner that has just started may not know yet that we listen). */
  private heard = false;
  private wake?: () => void;

  /** `pollMs` overrides the fallback poll (tests). */
  constructor(
    private readonly knex: Knex,
    private readonly channel?: DbChannel,
    private readonly pollMs?: number,
  ) {
    channel?.onMessage(() => {
      this.heard = true;
      this.signalled = true;
      this.wake?.();
    });
  }

  /** Resolves once every projection in `names` has stored a checkpoint at or past `position`; ProjectionLagError after `timeoutMs`. */
  waitFor(position: LogPosition, names: string[], timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiters.add({ position, names, deadline: Date.now() + timeoutMs, resolve, reject });
      this.loop ??= this.run();
    });
  }

  private async run(): Promise<void> {
    void this.channel?.listen();
    try {
      while (this.waiters.size) {
        this.signalled = false;
        const names = [...new Set([...this.waiters].flatMap((w) => w.names))];
        let stored: Map<string, LogPosition | null>;
        let failed: Set<string>;
        try {
          const rows = (await this.knex('projection_checkpoints').whereIn('name', names).select('name', 'position', this.knex.raw('failure is not null as failed'))) as { name: string; position: string | null; failed: boolean }[];
          stored = new Map(rows.map((r) => [r.name, r.position]));
          failed = new Set(rows.filter((r) => r.failed).map((r) => r.name));
        } catch (err) {
          for (const w of this.waiters) w.reject(err instanceof Error ? err : new Error(String(err)));
          this.waiters.clear();
          return;
        }
        const now = Date.now();
        for (const w of this.waiters) {
          const behind = w.names.filter((n) => comparePositions(stored.get(n) ?? null, w.position) < 0);
          const stopped = behind.filter((n) => failed.has(n));
          if (behind.length && !stopped.length && now <= w.deadline) continue;
          this.waiters.delete(w);
          if (stopped.length) w.reject(new ReadModelFailedError(stopped));
          else if (behind.length) w.reject(new ProjectionLagError(behind));
          else w.resolve();
        }
        if (this.waiters.size && !this.signalled) await this.pause(now);
      }
    } finally {
      // In the same turn as the last look at the waiters (no await between): a waiter added later starts a new loop.
      this.loop = null;
    }
  }

  /** Until a projector's NOTIFY, the poll interval, or the nearest deadline, whichever comes first. */
  private pause(now: number): Promise<void> {
    const poll = this.pollMs ?? (this.heard && this.channel?.listening ? NOTIFIED_POLL_MS : POLL_MS);
    const nearest = Math.min(...[...this.waiters].map((w) => w.deadline)) - now + 1;
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, Math.min(poll, nearest)));
      this.wake = done;
    });
  }
}
