// The one log rewrite (issue 32): a log written before crypto-shredding (plaintext personal fields, and user events
// that still carry password hashes) is encrypted in place by `log encrypt-personal-data`'s core. Dry run first, then a
// run killed after two batches and resumed; afterwards no plaintext or hash is left in es_events, the events still read
// through their codecs, every read model rebuilds equal to the one before, and a second run changes nothing.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { backends, openTestDb } from '../support/db.ts';
import { startService } from '../support/app.ts';
import { settle } from '../support/settle.ts';
import { billingStaff } from '../support/billing.ts';
import { ops } from '../support/ops.ts';
import { TestClock } from '../../src/clock.ts';
import type { Db } from '../../src/db.ts';
import { envelopeSubject, isEnvelope, open } from '../../src/eventstore/envelope.ts';
import { PERSONAL_FIELDS } from '../../src/domain/personal-events.ts';
import { ERASED, subjectOf } from '../../src/domain/personal.ts';
import { UserEvents } from '../../src/domain/identity/user.ts';
import { backupLog } from '../../src/eventstore/rewrite/backup.ts';
import { RewriteInterrupted, type RewriteReport, encryptPersonalData } from '../../src/eventstore/rewrite/encrypt-personal-data.ts';
import { LogRewriteError } from '../../src/eventstore/rewrite/errors.ts';
import { dumpReadModels, writeSampleData } from '../projections/support.ts';
import { appendLegacyUser, logText, plaintexts, rows, unmarkedText, valueAt } from '../support/log-rewrite.ts';

const BATCH = 40;

/** Turns a log written with crypto-shredding into one written before it: every envelope back to plaintext, no keys. */
async function writtenBeforeShredding(knex: Knex): Promise<void> {
  const keys = new Map(((await knex('data_subject_keys').whereNotNull('key').select('subject', 'key')) as { subject: string; key: Uint8Array }[]).map((k) => [k.subject, Buffer.from(k.key)]));
  for (const row of await rows(knex)) {
    const paths = PERSONAL_FIELDS.get(row.type);
    if (!paths) continue;
    let data: Record<string, unknown> = row.data;
    for (const p of paths) {
      const v = valueAt(data, p.path);
      if (!isEnvelope(v)) continue;
      const subject = envelopeSubject(v) ?? subjectOf(p, data, row.stream_id);
      const key = keys.get(subject);
      if (!key) throw new Error(`no key for ${subject}`);
      data = structuredClone(data);
      const parent = valueAt(data, p.path.slice(0, -1)) as Record<string, unknown>;
      parent[p.path.at(-1) ?? ''] = open(v, subject, key);
    }
    if (data !== row.data) await knex('es_events').where({ stream_id: row.stream_id, revision: row.revision }).update({ data: JSON.stringify(data) });
  }
  await knex('data_subject_keys').whereNotNull('key').delete();
}

/** A sample customer (test/projections/support.ts writeAccounts) erased before the rewrite. */
const ERASED_EMAIL = 'c1@example.com';

const HASHES = ['scrypt$16384$8$1$c2FsdHNhbHQ$bGVnYWN5LWhhc2gtb25l', 'scrypt$16384$8$1$c2FsdHNhbHQ$bGVnYWN5LWhhc2gtdHdv'];

for (const backend of backends()) {
  describe(`log encrypt-personal-data (${backend})`, () => {
    let db: Db;
    let clock: TestClock;
    let dir: string;
    let snapshot: Record<string, unknown[]>;
    let plainBefore: Map<string, string[]>;
    let legacyUser: string;
    let heldElsewhere: string[];
    let erasedCustomerValues: string[];
    let dry: RewriteReport;
    let legacyLog: string[];
    const backupFile = () => path.join(dir, 'log.jsonl');

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-logmig-'));
      db = await openTestDb(backend);
      // The sample's payments are dated from today: its clock starts now.
      const svc = await startService(backend, { db, selfUrl: true });
      clock = svc.clock;
      await writeSampleData(svc);
      await settle(svc);
      await svc.app.close();

      // The log as an old deployment holds it: plaintext, no keys, and user events with password hashes.
      await writtenBeforeShredding(db.knex);
      legacyUser = crypto.randomUUID();
      await appendLegacyUser(db, { id: legacyUser, email: 'old.timer@legacy.example', name: 'Olde Tymer' }, HASHES);
      plainBefore = await plaintexts(db.knex);
      const unmarked = await unmarkedText(db.knex);
      heldElsewhere = [...new Set([...plainBefore.values()].flat())].filter((v) => unmarked.includes(JSON.stringify(v).slice(1, -1)));

      // The read models of that log (rebuilt from it), which the rewrite must leave a rebuild equal to; and one
      // customer erased before the rewrite (erasure shipped first): its old events' plaintext is still in the log.
      const old = await startService(backend, { db, clock });
      const created = await db.knex('es_events').where({ type: 'CustomerCreated' }).whereRaw(`data->>'email' = ?`, [ERASED_EMAIL]).first('stream_id');
      const erase = await old.call(ops['billing.customers.erase'], { id: String(created.stream_id).replace(/^customer-/, ''), legal_basis: 'consent_withdrawn', reason: 'asked before the rewrite' }, await billingStaff(old));
      expect(erase.status, JSON.stringify(erase.body)).to.equal(200);
      const erasedStream = String(created.stream_id);
      erasedCustomerValues = (await rows(db.knex)).filter((r) => r.stream_id === erasedStream).flatMap((r) => (PERSONAL_FIELDS.get(r.type) ?? []).map((p) => valueAt(r.data, p.path))).filter((v): v is string => typeof v === 'string' && v !== ERASED);
      expect(erasedCustomerValues).to.include(ERASED_EMAIL);
      await settle(old);
      await old.app.runner.rebuild([]);
      snapshot = await dumpReadModels(db.knex);
      await old.app.close();
    });
    after(async () => {
      await db?.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('the prepared log holds plaintext in every kind of marked field and two password hashes', async () => {
      expect([...plainBefore.keys()]).to.include.members(['CustomerCreated.email', 'CustomerCreated.name', 'CustomerCreated.billing_address.line1', 'CustomerUpdated.changes.name', 'NoteAdded.body', 'NoteEdited.body', 'NoteEdited.previous_body', 'AttachmentPrepared.filename', 'UserRegistered.email', 'UserRegistered.name', 'EmailClaimed.email']);
      const text = (await logText(db.knex)).join('\n');
      for (const h of HASHES) expect(text).to.include(h);
    });

    it('a dry run reports per event type and field what would change, and writes nothing', async () => {
      const log = await logText(db.knex);
      legacyLog = log;
      const keys = await db.knex('data_subject_keys').count<{ count: string }[]>('* as count');
      dry = await encryptPersonalData(db.knex, { fields: PERSONAL_FIELDS, now: () => clock.now(), dryRun: true, batchSize: BATCH });
      expect(await logText(db.knex)).to.deep.equal(log);
      expect(await db.knex('data_subject_keys').count<{ count: string }[]>('* as count')).to.deep.equal(keys);
      expect(await db.knex('es_log_rewrites').select('name')).to.deep.equal([]);
      // Counted independently: per type and field, the stored strings SQL sees at that path.
      for (const [type, paths] of PERSONAL_FIELDS) {
        for (const p of paths) {
          const r = await db.knex.raw(`select count(*)::int as n from es_events where type = ? and jsonb_typeof(data #> ?) = 'string' and data #>> ? <> ?`, [type, [...p.path], [...p.path], ERASED]);
          expect(dry.fields[type]?.[p.path.join('.')] ?? 0, `${type}.${p.path.join('.')}`).to.equal((r.rows[0] as { n: number }).n);
        }
      }
      expect(dry.events_scanned).to.equal(log.length);
      expect(dry.password_hashes_removed).to.equal(2);
      expect(dry.fields.UserRegistered?.email).to.be.greaterThan(1);
      expect(dry.subjects_keyed).to.be.greaterThan(10);
      // The erased customer's email, name and note texts: stored as the placeholder, under no key.
      expect(dry.erased_values).to.be.greaterThan(3);
      expect(dry.events_rewritten).to.be.greaterThan(20).and.lessThan(dry.events_scanned);
    });

    it('refuses to rewrite without a backup the tool made, or with one that changed, and writes nothing', async () => {
      const log = await logText(db.knex);
      const refusal = async (opts: { backupFile?: string }) => {
        try {
          await encryptPersonalData(db.knex, { fields: PERSONAL_FIELDS, now: () => clock.now(), ...opts });
        } catch (err) {
          expect(err).to.be.instanceOf(LogRewriteError);
          return (err as Error).message;
        }
        throw new Error('no refusal');
      };
      expect(await refusal({})).to.match(/refusing to rewrite the log without a backup/);
      expect(await refusal({ backupFile: path.join(dir, 'missing.jsonl') })).to.match(/no backup file at/);
      const made = await backupLog(db.knex, path.join(dir, 'tampered.jsonl'), clock.now());
      expect(made.events).to.equal(log.length);
      fs.appendFileSync(made.file, '{}\n');
      expect(await refusal({ backupFile: made.file })).to.match(/is not a backup made by `core-server log backup`/);
      let exists = '';
      try {
        await backupLog(db.knex, made.file, clock.now());
      } catch (err) {
        exists = (err as Error).message;
      }
      expect(exists).to.match(/exists already/);
      expect(await logText(db.knex)).to.deep.equal(log);
      expect(await db.knex('es_log_rewrites').select('name')).to.deep.equal([]);
    });

    it('killed after two batches, the rerun continues where it stopped; the counts are the dry run\'s', async () => {
      const backup = await backupLog(db.knex, backupFile(), clock.now());
      expect(backup.events).to.equal(dry.events_scanned);
      let error: unknown;
      try {
        await encryptPersonalData(db.knex, { fields: PERSONAL_FIELDS, now: () => clock.now(), backupFile: backup.file, batchSize: BATCH, interrupt: (n) => n === 3 });
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(RewriteInterrupted);
      // Two batches committed, the third rolled back with its checkpoint.
      const cp = await db.knex('es_log_rewrites').where({ name: 'encrypt-personal-data' }).first();
      expect(cp.finished_at).to.equal(null);
      expect(cp.report.events_scanned).to.equal(2 * BATCH);
      const half = await plaintexts(db.knex);
      const left = [...half.values()].flat().length;
      expect(left).to.be.greaterThan(0).and.lessThan([...plainBefore.values()].flat().length);

      const report = await encryptPersonalData(db.knex, { fields: PERSONAL_FIELDS, now: () => clock.now(), backupFile: backup.file, batchSize: BATCH });
      expect(report.resumed).to.equal(true);
      expect(report.backup).to.deep.equal({ file: backup.file, sha256: backup.sha256 });
      expect({ ...report, resumed: false, backup: null, dry_run: true }).to.deep.equal(dry);
    });

    it('leaves no plaintext personal value and no password hash in es_events, and the user events still read', async () => {
      expect(await plaintexts(db.knex)).to.deep.equal(new Map());
      const stored = await logText(db.knex);
      const text = stored.join('\n');
      for (const h of HASHES) expect(text).to.not.include(h);
      expect(text).to.not.include('password_hash');
      expect(text).to.not.include(ERASED_EMAIL);
      // Searched as text: every distinct personal value of more than a few characters (shorter ones, like a
      // "Leeds", may also be an unrelated field's value; those are covered by the field check above).
      // No personal value is also copied into a field no schema marks (MessageDecided.to, the email outbox's
      // recipient, is marked since the erasure reaches messages): the rewrite leaves none in plaintext.
      expect(heldElsewhere).to.deep.equal([]);
      const values = [...new Set([...plainBefore.values()].flat())].filter((v) => v.length >= 8 && !heldElsewhere.includes(v));
      expect(values.length).to.be.greaterThan(20);
      const found = values.filter((v) => text.includes(JSON.stringify(v).slice(1, -1)));
      expect(found).to.deep.equal([]);

      const svc = await startService(backend, { db, clock });
      try {
        const events = [];
        for await (const e of svc.app.store.readStream(`user-${legacyUser}`, {})) events.push(e);
        expect(events.map((e) => UserEvents[e.type as keyof typeof UserEvents].parse(e.data))).to.deep.equal([
          { user_id: legacyUser, email: 'old.timer@legacy.example', name: 'Olde Tymer', registered_at: '2025-01-02T03:04:05.000Z' },
          {},
        ]);
      } finally {
        await svc.app.close();
      }
    });

    it('every read model rebuilt from the rewritten log equals the one before', async () => {
      const svc = await startService(backend, { db, clock });
      try {
        await svc.app.runner.rebuild([]);
        const rebuilt = await dumpReadModels(db.knex);
        expect(Object.keys(rebuilt)).to.deep.equal(Object.keys(snapshot));
        // Equal, except where a read model still showed a value of the customer erased before the rewrite: the
        // rewrite stored its plaintext as the placeholder, so the rebuild shows "[erased]" there (and nothing else).
        const erasedValues = new Set(erasedCustomerValues);
        const asErased = (v: unknown): unknown =>
          typeof v === 'string' ? (erasedValues.has(v) ? ERASED : v) : Array.isArray(v) ? v.map(asErased) : v && typeof v === 'object' && !(v instanceof Date) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asErased(x)])) : v;
        const completed = new Set<string>();
        for (const [table, rowsBefore] of Object.entries(snapshot)) {
          const after = rebuilt[table] ?? [];
          expect(after.length, table).to.equal(rowsBefore.length);
          rowsBefore.forEach((row, i) => {
            if (JSON.stringify(after[i]) === JSON.stringify(row)) return;
            completed.add(table);
            expect(after[i], `${table} row ${i}`).to.deep.equal(asErased(row));
          });
        }
        // The erasure already rewrote every read model's rows (the webhook outbox's undelivered payloads included), so
        // a rebuild from the rewritten log equals the snapshot row for row.
        expect([...completed]).to.deep.equal([]);
      } finally {
        await svc.app.close();
      }
    });

    it('a second run changes nothing', async () => {
      const log = await logText(db.knex);
      const keys = await db.knex('data_subject_keys').orderBy('subject').select('subject', 'key');
      const report = await encryptPersonalData(db.knex, { fields: PERSONAL_FIELDS, now: () => clock.now(), backupFile: backupFile(), batchSize: BATCH });
      expect(report).to.include({ events_scanned: dry.events_scanned, events_rewritten: 0, password_hashes_removed: 0, subjects_keyed: 0, resumed: false });
      expect(report.fields).to.deep.equal({});
      expect(await logText(db.knex)).to.deep.equal(log);
      expect(await db.knex('data_subject_keys').orderBy('subject').select('subject', 'key')).to.deep.equal(keys);
    });

    if (backend === 'postgres') {
      it("docs/operations.md's psql recipe puts the backed-up event data back", async () => {
        const doc = fs.readFileSync(path.join(import.meta.dirname, '../../docs/operations.md'), 'utf8');
        const recipe = /```sql\n(create temp table es_backup[\s\S]*?)```/.exec(doc)?.[1];
        if (!recipe) throw new Error('no restore recipe in docs/operations.md');
        const script = path.join(dir, 'restore.sql');
        fs.writeFileSync(script, recipe.replace('/backup/es_events-2026-11-26.jsonl', backupFile()));
        await promisify(execFile)('psql', ['-v', 'ON_ERROR_STOP=1', '-q', '-f', script, db.url ?? '']);
        expect(await logText(db.knex)).to.deep.equal(legacyLog);
        expect(await db.knex('es_log_rewrites').select('name')).to.deep.equal([]);
      });
    }
  });
}
