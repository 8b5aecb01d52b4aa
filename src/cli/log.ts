// `core-server log backup` and `core-server log encrypt-personal-data` (issue 32): the operator's one-time rewrite of
// the log's plaintext personal data, and the backup it insists on. On the SQL log only: EventStoreDB events are
// immutable (docs/operations.md says what to do there).
import path from 'node:path';
import type { Command } from 'commander';
import type { Knex } from 'knex';
import type { Config } from '../config.ts';
import type { RewriteReport } from '../eventstore/rewrite/encrypt-personal-data.ts';
import { LogRewriteError } from '../eventstore/rewrite/errors.ts';

/** What the commands need: the configuration, and the migrated database to run on (closed by `close`). */
export interface LogCommandsDeps {
  config: () => Config;
  open: (config: Config) => Promise<{ knex: Knex; close: () => Promise<void> }>;
  fail: (message: string) => Error;
}

/** The report as lines an operator reads. */
export function formatRewriteReport(r: RewriteReport): string[] {
  const would = r.dry_run ? ' (would be)' : '';
  const lines = [
    r.dry_run ? 'dry run: nothing was written' : `log rewritten${r.resumed ? ' (continued a stopped run)' : ''}; backup ${r.backup?.file ?? '-'} (sha256 ${r.backup?.sha256 ?? '-'})`,
    `events scanned: ${r.events_scanned}`,
    `events rewritten${would}: ${r.events_rewritten}`,
    `password hashes removed${would}: ${r.password_hashes_removed}`,
    `subjects keyed${would}: ${r.subjects_keyed}`,
    `values of erased subjects stored as "[erased]"${would}: ${r.erased_values}`,
    `email claims of erased users released${would}: ${r.claims_released}`,
    `email claim streams moved from unkeyed to keyed names${would}: ${r.claim_streams_renamed}`,
  ];
  const fields = Object.entries(r.fields).flatMap(([type, byField]) => Object.entries(byField).map(([field, n]) => `  ${type}.${field}: ${n}`));
  if (fields.length > 0) lines.push(`plaintext values encrypted${would}, by event type and field:`, ...fields.sort());
  return lines;
}

/** Adds `log backup` and `log encrypt-personal-data` to the program. */
export function addLogCommands(program: Command, deps: LogCommandsDeps): void {
  const log = program.command('log').description('Operator commands on the event log itself (the SQL log: PostgreSQL or the embedded database).');

  // Opens the SQL log, or refuses for EventStoreDB; LogRewriteError becomes the CLI's one-line error.
  const onSqlLog = async (what: string, fn: (knex: Knex) => Promise<void>) => {
    const config = deps.config();
    if (config.eventLog.kind !== 'postgres') throw deps.fail(`${what} works on the SQL log only; EVENT_STORE is EventStoreDB, whose events cannot be changed: see docs/operations.md ("Encrypting personal data already in the log") for copying to a new database`);
    const db = await deps.open(config);
    try {
      await fn(db.knex);
    } catch (err) {
      if (err instanceof LogRewriteError) throw deps.fail(err.message);
      throw err;
    } finally {
      await db.close();
    }
  };

  log
    .command('backup')
    .description('Writes every event of the log, as stored, to a new JSON-lines file and records its SHA-256 (what encrypt-personal-data checks before it rewrites).')
    .requiredOption('--to <file>', 'the backup file to create (never overwritten)')
    .action(async (o: { to: string }) => {
      await onSqlLog('log backup', async (knex) => {
        const { backupLog } = await import('../eventstore/rewrite/backup.ts');
        const b = await backupLog(knex, path.resolve(o.to), new Date());
        console.log(`backup of ${b.events} events written to ${b.file}`);
        console.log(`sha256 ${b.sha256}`);
      });
    });

  log
    .command('encrypt-personal-data')
    .description('One-time, resumable rewrite of the log: encrypts the personal fields of events stored before crypto-shredding and removes old password hashes. Stop every other core-server process first. Refuses without a backup made by `log backup`.')
    .option('--dry-run', 'report what would change (per event type and field); write nothing')
    .option('--backup <file>', 'a backup made by `core-server log backup` (its checksum is verified first)')
    .option('--backup-to <file>', 'make the backup now, into this new file, then rewrite')
    .option('--batch-size <n>', 'events per transaction', '500')
    .option('--json', 'print the report as JSON')
    .action(async (o: { dryRun?: boolean; backup?: string; backupTo?: string; batchSize: string; json?: boolean }) => {
      const batchSize = Number(o.batchSize);
      if (!Number.isInteger(batchSize) || batchSize < 1) throw deps.fail('--batch-size must be a whole number >= 1');
      if (o.backup && o.backupTo) throw deps.fail('give --backup <file> or --backup-to <file>, not both');
      if (!o.dryRun && !o.backup && !o.backupTo) throw deps.fail('refusing to rewrite the log without a backup: pass --backup-to <file> (or --backup <file> made by `core-server log backup --to <file>`); --dry-run needs none');
      await onSqlLog('log encrypt-personal-data', async (knex) => {
        // Loaded when the command runs: `--help` and `--version` load no service code (issue 30).
        const [{ backupLog }, { encryptPersonalData }, { PERSONAL_FIELDS }] = await Promise.all([import('../eventstore/rewrite/backup.ts'), import('../eventstore/rewrite/encrypt-personal-data.ts'), import('../domain/personal-events.ts')]);
        let backupFile = o.backup ? path.resolve(o.backup) : undefined;
        if (o.backupTo && !o.dryRun) {
          const b = await backupLog(knex, path.resolve(o.backupTo), new Date());
          console.error(`backup of ${b.events} events written to ${b.file} (sha256 ${b.sha256})`);
          backupFile = b.file;
        }
        const report = await encryptPersonalData(knex, { fields: PERSONAL_FIELDS, now: () => new Date(), dryRun: o.dryRun ?? false, backupFile, batchSize });
        for (const line of o.json ? [JSON.stringify(report)] : formatRewriteReport(report)) console.log(line);
      });
    });
}
