// Read-your-writes in a process that does not run the projections (`serve`, `work`): another process's
// runner moves the checkpoints. Its NOTIFY carries the checkpoints it has stored, which end the waits they
// cover without a read; one reader of projection_checkpoints per process serves every other waiting request,
// on a fallback poll (a lost NOTIFY, a failed projection) or when a NOTIFY says only that checkpoints moved.
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

/** NOTIFY payloads stop at 8,000 bytes: news longer than this says only that checkpoints moved. */
const MAX_NEWS_BYTES = 7_900;

/** The payload a runner sends: its stored checkpoints as JSON, or 'moved' when they would not fit. */
export function checkpointNews(stored: Record<string, LogPosition | null>): string {
  const text = JSON.stringify(stored);
  return Buffer.byteLength(text) <= MAX_NEWS_BYTES ? text : 'moved';
}

// The checkpoints a payload names; null for 'moved' (or anything else), which asks for a read.
function readNews(payload: string): [string, LogPosition | null][] | null {
  if (!payload.startsWith('{')) return null;
  try {
    const parsed = JSON.parse(payload) as Record<string, unknown>;
    return Object.entries(parsed).filter((e): e is [string, LogPosition | null] => typeof e[1] === 'string' || e[1] === null);
  } catch {
    return null;
  }
}

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
  /** Stored checkpoints as the projectors' last NOTIFYs gave them (each runner sends those it stores). */
  private readonly news = new Map<string, LogPosition | null>();

  /** `pollMs` overrides the fallback poll (tests). */
  constructor(
    private readonly knex: Knex,
    private readonly channel?: DbChannel,
    private readonly pollMs?: number,
  ) {
    channel?.onMessage((payload) => {
      this.heard = true;
      const news = readNews(payload);
      if (news) {
        // The sender's newest stored checkpoints: a read now would find the same. Waits they do not end wait for
        // the next news, or the poll.
        for (const [name, position] of news) this.news.set(name, position);
        for (const w of this.waiters) {
          if (!this.covered(w)) continue;
          this.waiters.delete(w);
          w.resolve();
        }
        return;
      }
      this.signalled = true;
      this.wake?.();
    });
  }

  /** Resolves once every projection in `names` has stored a checkpoint at or past `position`; ProjectionLagError after `timeoutMs`. */
  waitFor(position: LogPosition, names: string[], timeoutMs: number): Promise<void> {
    if (this.covered({ position, names })) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiters.add({ position, names, deadline: Date.now() + timeoutMs, resolve, reject });
      this.loop ??= this.run();
    });
  }

  // Whether the news already heard has every one of the projections at or past the position.
  private covered(w: Pick<Waiter, 'position' | 'names'>): boolean {
    return w.names.every((n) => this.news.has(n) && comparePositions(this.news.get(n) ?? null, w.position) >= 0);
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
