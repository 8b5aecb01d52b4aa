// `core-server log backup`: every es_events row, as stored, in a JSON-lines file, and the file's SHA-256 recorded in
// es_log_backups. The log rewrite (encrypt-personal-data) runs only against a backup this made, re-checksummed first.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { finished } from 'node:stream/promises';
import type { Knex } from 'knex';
import { LogRewriteError } from './errors.ts';

/** The first line of a backup file. */
export const BACKUP_FORMAT = 'core-server/es_events-backup/v1';

const PAGE = 1000;

/** A backup as recorded: its checksum and how much of the log it holds. */
export interface LogBackup {
  file: string;
  sha256: string;
  events: number;
  /** The last event it holds (transaction id and global position), null for an empty log. */
  last: { xid: string; position: string } | null;
}

interface Row {
  xid: string;
  global_position: string;
  stream_id: string;
  revision: string;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
  created_at: string;
}

/** Writes every es_events row to `file` (which must not exist yet) and records the file's checksum. */
export async function backupLog(knex: Knex, file: string, now: Date): Promise<LogBackup> {
  let out: fs.WriteStream;
  try {
    fs.closeSync(fs.openSync(file, 'wx'));
    out = fs.createWriteStream(file);
  } catch (err) {
    throw new LogRewriteError(`cannot create the backup file ${file}: ${(err as NodeJS.ErrnoException).code === 'EEXIST' ? 'it exists already (a backup is never overwritten)' : (err as Error).message}`);
  }
  const hash = createHash('sha256');
  const write = async (line: string) => {
    hash.update(line);
    if (!out.write(line)) await new Promise<void>((r) => out.once('drain', () => r()));
  };
  let events = 0;
  let last = null as LogBackup['last'];
  try {
    await write(`${JSON.stringify({ format: BACKUP_FORMAT, made_at: now.toISOString() })}\n`);
    // One snapshot of the log: a repeatable-read transaction, paged by the log's order (transaction id, position).
    await knex.transaction(async (trx) => {
      await trx.raw('set transaction isolation level repeatable read');
      for (;;) {
        const where = last ? 'where (transaction_id, global_position) > (?::xid8, ?::bigint)' : '';
        const res = await trx.raw(
          `select transaction_id::text as xid, global_position::text, stream_id, revision::text, event_id::text, type, data::text as data, metadata::text as metadata,
             to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at
           from es_events ${where} order by es_events.transaction_id, es_events.global_position limit ${PAGE}`,
          last ? [last.xid, last.position] : [],
        );
        const rows = res.rows as Row[];
        for (const r of rows) {
          await write(`${JSON.stringify({ ...r, data: JSON.parse(r.data), metadata: JSON.parse(r.metadata) })}\n`);
          last = { xid: r.xid, position: r.global_position };
        }
        events += rows.length;
        if (rows.length < PAGE) break;
      }
    });
    await write(`${JSON.stringify({ events })}\n`);
    out.end();
    await finished(out);
  } catch (err) {
    out.destroy();
    fs.rmSync(file, { force: true });
    throw err;
  }
  const backup: LogBackup = { file, sha256: hash.digest('hex'), events, last };
  await knex('es_log_backups').insert({ sha256: backup.sha256, file, events, last_xid: last?.xid ?? null, last_position: last?.position ?? null, made_at: now }).onConflict('sha256').merge(['file', 'made_at']);
  return backup;
}

/** The SHA-256 of a file, streamed. */
async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The recorded backup `file` is, after checking that its bytes are the ones `backupLog` wrote and that the log holds
 * no event it lacks. Throws a LogRewriteError saying what to do otherwise.
 */
export async function verifyBackup(knex: Knex, file: string): Promise<LogBackup> {
  if (!fs.existsSync(file)) throw new LogRewriteError(`no backup file at ${file}: make one with \`core-server log backup --to <file>\` (or pass --backup-to <file>)`);
  const sha256 = await sha256Of(file);
  const row = (await knex('es_log_backups').where({ sha256 }).first()) as { file: string; events: string | number; last_xid: string | null; last_position: string | number | null } | undefined;
  if (!row) throw new LogRewriteError(`${file} is not a backup made by \`core-server log backup\` on this database, or it changed since (its SHA-256 ${sha256} is not recorded)`);
  const last = row.last_xid === null || row.last_position === null ? null : { xid: row.last_xid, position: String(row.last_position) };
  const newer = last
    ? await knex.raw('select count(*)::int as n from es_events where (transaction_id, global_position) > (?::xid8, ?::bigint)', [last.xid, last.position])
    : await knex.raw('select count(*)::int as n from es_events');
  const n = (newer.rows[0] as { n: number }).n;
  if (n > 0) throw new LogRewriteError(`${n} event(s) were appended after the backup ${file} was made: stop the service and make a new backup (core-server log backup --to <file>)`);
  return { file, sha256, events: Number(row.events), last };
}
