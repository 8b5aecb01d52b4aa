// Read-your-writes: waiting until read models have applied a position, here (this process runs them: woken as
// checkpoints move) or elsewhere (another process runs them: RemoteProgress reads the stored checkpoints).
import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import { type LogPosition, comparePositions } from '../../eventstore/port.ts';
import { ProjectionLagError, ReadModelFailedError, type ReadModelRef } from '../../context.ts';
import type { DbChannel } from '../../db-channel.ts';
import type { ProjectionState } from '../../read-model-status.ts';
import { RemoteProgress } from './remote-progress.ts';

/** The waiters of one runner. */
export class Waits {
  private readonly advanced = new EventEmitter();
  /** Read-your-writes while another process runs the projections (made on a first wait there). */
  private remote?: RemoteProgress;

  constructor(
    private readonly knex: Knex,
    private readonly local: {
      /** Where a projection is in this process. */
      position(name: string): LogPosition | null;
      /** Its state in this process. */
      state(name: string): ProjectionState;
      /** Whether this process runs the projections (else another process does). */
      running(): boolean;
    },
    private readonly progressChannel?: DbChannel,
  ) {
    this.advanced.setMaxListeners(0);
  }

  /** Says that checkpoints moved or a projection failed: the waiters look again. */
  notify(): void {
    this.advanced.emit('advanced');
  }

  /** Waits until every given read model has processed `position` (read-your-writes). */
  async waitFor(position: LogPosition | null, readModels: ReadModelRef[], timeoutMs: number): Promise<void> {
    const names = readModels.map((m) => m.name);
    if (position === null) return;
    const pending = () => names.filter((n) => comparePositions(this.local.position(n), position) < 0);
    const failed = () => pending().filter((n) => this.local.state(n) === 'failed');
    if (pending().length === 0) return;
    if (this.local.running() && failed().length) throw new ReadModelFailedError(failed());
    if (!this.local.running()) {
      this.remote ??= new RemoteProgress(this.knex, this.progressChannel);
      await this.remote.waitFor(position, names, timeoutMs);
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pending().length === 0) finish();
        else if (failed().length) finish(new ReadModelFailedError(failed()));
      };
      const finish = (err?: Error) => {
        clearTimeout(timer);
        this.advanced.off('advanced', check);
        if (err) reject(err);
        else resolve();
      };
      // A position reached without a word (none should be) is not lag.
      const timer = setTimeout(() => finish(pending().length ? new ProjectionLagError(pending()) : undefined), timeoutMs);
      this.advanced.on('advanced', check);
    });
  }
}
