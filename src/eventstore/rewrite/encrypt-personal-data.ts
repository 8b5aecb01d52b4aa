// `core-server log encrypt-personal-data` (issue 32): the one command that rewrites the log. Events stored before the
// crypto-shredding decorator hold their personal fields in plaintext, and user events stored before the hardening
// that moved password hashes out of the log still hold one. This seals each plaintext marked field through the
// decorator's own code (same subjects, same keys, same envelope) and drops the hashes. Batches of events in log order,
// each in one transaction with the checkpoint, so a killed run continues after its last committed batch and a run
// after completion finds nothing left to change. Read models need no rebuild: every reader gets the same plaintext.
import type { Knex } from 'knex';
import { ERASED, type PersonalFields } from '../../domain/personal.ts';
import { LEGACY_PASSWORD_HASH, UserEvents } from '../../domain/identity/user.ts';
import { type PlainValue, plaintextValues, sealValues } from '../shredding.ts';
import { TableKeyStore } from '../key-table.ts';
import { isEnvelope } from '../envelope.ts';
import type { SubjectKey } from '../keys.ts';
import { type LogBackup, verifyBackup } from './backup.ts';
import { LogRewriteError } from './errors.ts';
import { heldClaimsOfErasedUsers, releaseClaimsOfErasedUsers } from './erased-claims.ts';
import { legacyClaimStreamCount, moveLegacyClaimStreams } from './claim-names.ts';

/** The checkpoint's name in es_log_rewrites. */
const NAME = 'encrypt-personal-data';

/** What a run found and did (a dry run: what a run would do). Counts add up over a resumed run's parts. */
export interface RewriteReport {
  dry_run: boolean;
  /** Events read (every event of the log, in log order). */
  events_scanned: number;
  /** Events whose stored data changed. */
  events_rewritten: number;
  /** Plaintext values sealed, by event type and field path. */
  fields: Record<string, Record<string, number>>;
  /** Plaintext values of subjects erased already, stored as the placeholder instead (their key is gone). */
  erased_values: number;
  password_hashes_removed: number;
  /** Subjects given a key by this run (they had none). */
  subjects_keyed: number;
  /** Email claims of users erased before erasure released claims, released now (erased-claims.ts). */
  claims_released: number;
  /** Claim streams moved from their legacy (unkeyed) name to a keyed one (claim-names.ts). */
  claim_streams_renamed: number;
  /** Whether this run continued one that had stopped. */
  resumed: boolean;
  backup: { file: string; sha256: string } | null;
}

/** How a run is asked for. */
export interface RewriteOptions {
  fields: PersonalFields;
  now: () => Date;
  /** Report only: read the log, write nothing (no backup needed). */
  dryRun?: boolean;
  /** The backup file made by `log backup` (checked before anything is written); required unless dryRun. */
  backupFile?: string;
  /** Events per batch (one transaction each). */
  batchSize?: number;
  /** Tests: called inside each batch's transaction before it commits; returning true aborts that batch (a kill). */
  interrupt?: (batch: number) => boolean;
}

/** The run stopped by `interrupt` (tests); the batches before it are committed. */
export class RewriteInterrupted extends Error {}

interface Cursor {
  xid: string;
  position: string;
}

interface LogRow {
  xid: string;
  global_position: string;
  stream_id: string;
  revision: string;
  type: string;
  data: unknown;
}

const HASH_TYPES = new Set<string>(LEGACY_PASSWORD_HASH.types);
const HASH_FIELD = LEGACY_PASSWORD_HASH.field;

function emptyReport(dryRun: boolean, backup: LogBackup | null): RewriteReport {
  return { dry_run: dryRun, events_scanned: 0, events_rewritten: 0, fields: {}, erased_values: 0, password_hashes_removed: 0, subjects_keyed: 0, claims_released: 0, claim_streams_renamed: 0, resumed: false, backup: backup ? { file: backup.file, sha256: backup.sha256 } : null };
}

/** One batch of the log after `after`, in log order; data only for the event types that may change. */
async function readBatch(knex: Knex, after: Cursor | null, types: string[], size: number): Promise<LogRow[]> {
  const where = after ? 'where (transaction_id, global_position) > (?::xid8, ?::bigint)' : '';
  const res = await knex.raw(
    `select transaction_id::text as xid, global_position::text, stream_id, revision::text, type, case when type = any(?) then data end as data
     from es_events ${where} order by es_events.transaction_id, es_events.global_position limit ${size}`,
    after ? [types, after.xid, after.position] : [types],
  );
  return res.rows as LogRow[];
}

/** What one event needs: its plaintext personal values, and whether it holds a legacy password hash. */
function planOf(fields: PersonalFields, row: LogRow): { values: PlainValue[]; hash: boolean } {
  if (row.data === null || typeof row.data !== 'object') return { values: [], hash: false };
  // A stored placeholder is what an erased subject's value already is: nothing to seal.
  const values = plaintextValues(fields, row.type, row.data, row.stream_id).filter((v) => v.text !== ERASED);
  const hash = HASH_TYPES.has(row.type) && Object.hasOwn(row.data, HASH_FIELD);
  return { values, hash };
}

/** `data` without its legacy password hash. */
function withoutHash(data: unknown): Record<string, unknown> {
  const { [HASH_FIELD]: _dropped, ...rest } = data as Record<string, unknown>;
  return rest;
}

/** The event's new data: the plaintext sealed (or the placeholder for an erased subject), the hash dropped. */
function rewritten(fields: PersonalFields, row: LogRow, plan: { values: PlainValue[]; hash: boolean }, keyOf: (s: string) => SubjectKey): unknown {
  if (!plan.hash) return sealValues(row.data, plan.values, keyOf);
  // The event must still read through its codec once its hash is gone, as a reader sees it (personal values opened):
  // checked on the plaintext form before anything is written.
  const readable = sealValues(withoutHash(row.data), envelopesOf(fields, row), () => null);
  const parsed = UserEvents[row.type as keyof typeof UserEvents].safeParse(readable);
  if (!parsed.success) throw new LogRewriteError(`event ${row.stream_id}@${row.revision} (${row.type}) would not read through its codec without its password hash: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return sealValues(withoutHash(row.data), plan.values, keyOf);
}

/** The marked fields of an event that hold envelopes already (a reader sees strings there). */
function envelopesOf(fields: PersonalFields, row: LogRow): PlainValue[] {
  return (fields.get(row.type) ?? []).filter((p) => isEnvelope(p.path.reduce<unknown>((at, k) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[k] : undefined), row.data))).map((p) => ({ path: p.path, subject: '', text: '' }));
}

function count(report: RewriteReport, row: LogRow, plan: { values: PlainValue[]; hash: boolean }, keyOf: (s: string) => SubjectKey | undefined): void {
  report.events_scanned++;
  if (plan.values.length === 0 && !plan.hash) return;
  report.events_rewritten++;
  if (plan.hash) report.password_hashes_removed++;
  const byField = (report.fields[row.type] ??= {});
  for (const v of plan.values) {
    const field = v.path.join('.');
    byField[field] = (byField[field] ?? 0) + 1;
    if (keyOf(v.subject) === null) report.erased_values++;
  }
}

/** Reads the whole log and reports what a run would change; writes nothing (no key, no checkpoint). */
async function dryRun(knex: Knex, opts: RewriteOptions, types: string[], size: number): Promise<RewriteReport> {
  const report = emptyReport(true, null);
  const keys = new TableKeyStore(knex);
  const known = new Map<string, SubjectKey>();
  const unkeyed = new Set<string>();
  let after: Cursor | null = null;
  for (;;) {
    const rows = await readBatch(knex, after, types, size);
    const plans = rows.map((r) => planOf(opts.fields, r));
    const unknown = [...new Set(plans.flatMap((p) => p.values.map((v) => v.subject)))].filter((s) => !known.has(s) && !unkeyed.has(s));
    if (unknown.length > 0) {
      const found = await keys.find(unknown);
      for (const s of unknown) {
        const k = found.get(s);
        if (k === undefined) unkeyed.add(s);
        else known.set(s, k);
      }
    }
    rows.forEach((r, i) => count(report, r, plans[i] ?? { values: [], hash: false }, (s) => known.get(s)));
    const last = rows.at(-1);
    if (!last || rows.length < size) break;
    after = { xid: last.xid, position: last.global_position };
  }
  report.subjects_keyed = unkeyed.size;
  report.claims_released = await heldClaimsOfErasedUsers(knex);
  report.claim_streams_renamed = await legacyClaimStreamCount(knex);
  return report;
}

interface Checkpoint {
  backup_sha256: string;
  after_xid: string | null;
  after_position: string | number | null;
  report: RewriteReport;
  finished_at: Date | null;
}

/**
 * Encrypts the log's plaintext personal fields and removes legacy password hashes (see the file comment). Refuses,
 * writing nothing, without a verified backup made by `log backup`. Returns the run's report (a resumed run's counts
 * include the part before the stop).
 */
export async function encryptPersonalData(knex: Knex, opts: RewriteOptions): Promise<RewriteReport> {
  const size = opts.batchSize ?? 500;
  if (!Number.isInteger(size) || size < 1) throw new LogRewriteError('the batch size must be a whole number >= 1');
  const types = [...new Set([...opts.fields.keys(), ...HASH_TYPES])];
  if (opts.dryRun) return dryRun(knex, opts, types, size);
  if (!opts.backupFile) throw new LogRewriteError('refusing to rewrite the log without a backup: pass --backup <file> (made by `core-server log backup --to <file>`) or --backup-to <file>');
  const backup = await verifyBackup(knex, opts.backupFile);

  // Start a run, or continue the stopped one (a finished run is started afresh: it finds nothing left to change).
  const start = opts.now();
  const stored = (await knex('es_log_rewrites').where({ name: NAME }).first()) as Checkpoint | undefined;
  const resumed = stored !== undefined && stored.finished_at === null;
  if (!resumed) {
    const row = { name: NAME, backup_sha256: backup.sha256, after_xid: null, after_position: null, report: JSON.stringify(emptyReport(false, backup)), started_at: start, updated_at: start, finished_at: null };
    await knex('es_log_rewrites').insert(row).onConflict('name').merge();
  }

  let batch = 0;
  for (;;) {
    batch++;
    const done = await knex.transaction(async (trx) => {
      // Two runs at once take turns batch by batch, each reading the checkpoint the other left.
      await trx.raw(`select pg_advisory_xact_lock(hashtextextended('es_log_rewrites:${NAME}', 0))`);
      const cp = (await trx('es_log_rewrites').where({ name: NAME }).first()) as Checkpoint;
      const report: RewriteReport = { ...cp.report, resumed: cp.report.resumed || resumed, backup: { file: backup.file, sha256: backup.sha256 } };
      const after = cp.after_xid !== null && cp.after_position !== null ? { xid: cp.after_xid, position: String(cp.after_position) } : null;
      const rows = await readBatch(trx, after, types, size);
      const plans = rows.map((r) => planOf(opts.fields, r));
      const subjects = [...new Set(plans.flatMap((p) => p.values.map((v) => v.subject)))];
      const keys = new TableKeyStore(trx);
      const had = subjects.length > 0 ? await keys.find(subjects) : new Map<string, SubjectKey>();
      const all = subjects.length > 0 ? await keys.ensure(subjects, opts.now()) : had;
      report.subjects_keyed += subjects.filter((s) => !had.has(s)).length;
      const keyOf = (s: string): SubjectKey => all.get(s) ?? null;
      for (const [i, row] of rows.entries()) {
        const plan = plans[i] ?? { values: [], hash: false };
        count(report, row, plan, keyOf);
        if (plan.values.length === 0 && !plan.hash) continue;
        await trx.raw('update es_events set data = ?::jsonb where stream_id = ? and revision = ?::bigint', [JSON.stringify(rewritten(opts.fields, row, plan, keyOf)), row.stream_id, row.revision]);
      }
      const last = rows.at(-1);
      const finished = rows.length < size;
      await trx('es_log_rewrites')
        .where({ name: NAME })
        .update({
          backup_sha256: backup.sha256,
          ...(last ? { after_xid: last.xid, after_position: last.global_position } : {}),
          report: JSON.stringify(report),
          updated_at: opts.now(),
          finished_at: finished ? opts.now() : null,
        });
      if (opts.interrupt?.(batch)) throw new RewriteInterrupted(`stopped in batch ${batch}`);
      return finished ? report : null;
    });
    if (done) return releaseClaims(knex, opts);
  }
}

// After the last batch: the claims erased users still hold, released in a transaction of their own (an append is the
// first write of its transaction), then the legacy claim streams moved to keyed names; counted into the stored report.
// A run after completion finds none left.
async function releaseClaims(knex: Knex, opts: RewriteOptions): Promise<RewriteReport> {
  return knex.transaction(async (trx) => {
    await trx.raw(`select pg_advisory_xact_lock(hashtextextended('es_log_rewrites:${NAME}', 0))`);
    const released = await releaseClaimsOfErasedUsers(trx, opts.now());
    // After the releases: a stream whose claimants are all erased is released, so it moves to a name nobody looks up.
    const renamed = await moveLegacyClaimStreams(trx, opts.now());
    const cp = (await trx('es_log_rewrites').where({ name: NAME }).first()) as Checkpoint;
    const report: RewriteReport = { ...cp.report, claims_released: (cp.report.claims_released ?? 0) + released, claim_streams_renamed: (cp.report.claim_streams_renamed ?? 0) + renamed };
    await trx('es_log_rewrites').where({ name: NAME }).update({ report: JSON.stringify(report), updated_at: opts.now() });
    return report;
  });
}
