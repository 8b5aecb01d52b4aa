// What a projection is: the declaration every read-model builder gives the engine (src/projections/engine), and the
// optional faster write paths it may offer. The document-table kind of projection is built in ./documents.
import type { Knex } from 'knex';
import type { LogPosition, RecordedEvent } from '../eventstore/port.ts';

/** A read-model builder. It owns `tables`; nothing else writes them. */
export interface Projection {
  name: string;
  /** Bumping the version drops the tables' rows and replays the log into them. */
  version: number;
  tables: string[];
  /** Applies a batch of events in the runner's transaction. Events it does not handle are ignored. */
  apply(trx: Knex.Transaction, events: RecordedEvent[]): Promise<void>;
  /** Whether `apply` could change anything for an event of this type; when absent, every type counts. */
  handles?(type: string): boolean;
  /**
   * Optional bulk replay: folds many batches in memory and writes the result at once (catch-up and
   * rebuild). `fresh` says the tables are empty (the checkpoint is at the start of the log). `schema`: the
   * stored rows are read from the tables of this schema (a blue/green build's, engine/shadow.ts) instead of
   * those the search path finds; the write runs where the runner's transaction's search path points.
   */
  bulk?(knex: Knex, fresh: boolean, schema?: string): BulkApplier;
  /**
   * Optional live commit in one statement: reads what the batch needs (outside any transaction: the
   * checkpoint's compare-and-set in the commit statement guards them), folds the events, and returns
   * the writes. The runner runs them as CTEs of one statement with the lock and the checkpoint move
   * (engine/commit.ts), one round trip instead of a transaction's six. Absent: `apply` in a transaction.
   */
  stage?(knex: Knex, events: RecordedEvent[]): Promise<StagedWrites>;
  /** Whether `stage` takes this batch; when it says no, the batch goes through `apply` in a transaction. Absent: always. */
  stages?(events: RecordedEvent[]): boolean;
}

/** Adds one data-modifying CTE to the commit statement; `sql` gets the SQL condition the write must AND into its WHERE. Returns the CTE's name. */
export type AddStatement = (sql: (guard: string) => string, bindings: Knex.RawBinding[]) => string;

/** A batch's writes, prepared before the commit statement (reads done, events folded). */
export interface StagedWrites {
  /** Adds the writes as CTEs; each writes only when its guard holds (lock taken, checkpoint moved). */
  write(add: AddStatement): void;
  /** Called once the statement committed, with the position the checkpoint moved to and the runner's knex. */
  committed?(position: LogPosition, root: Knex): void;
}

/** Folds batches in memory between writes; the runner writes it with the checkpoint in one transaction. */
export interface BulkApplier {
  /** Folds a batch into memory, reading stored rows it does not hold yet. */
  fold(events: RecordedEvent[]): Promise<void>;
  /** Rows changed in memory and not written yet. */
  pending(): number;
  /** Writes what changed since the last write, in the runner's transaction. */
  write(trx: Knex.Transaction): Promise<void>;
}
