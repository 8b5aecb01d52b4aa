// Issue 32's "the migration runs on a copy of a database with the whole test suite's events and leaves every read
// model equal to a rebuild", as `npm test`'s last step (test/suite-log/run.ts). Every test database of the run wrote
// its events to the collection when it closed (test/support/suite-log.ts); here they become one log in a fresh
// database of each backend (./merge.ts: plaintext again, as before crypto-shredding), with two old user events that
// still hold password hashes. Every read model is projected from it; then `log backup` and
// `log encrypt-personal-data` run through the CLI's own commands; afterwards no personal plaintext and no hash is
// left in es_events, and every read model rebuilt from the rewritten log equals the one projected before.
// Without a collection (a run of the check alone) it fails, saying how to make one: it never passes on less. One spec
// file per backend (whole-suite.<backend>.check.ts), so mocha runs the two in parallel workers: each takes minutes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Command } from 'commander';
import { type Backend, backends, openTestDb } from '../support/db.ts';
import { startService } from '../support/app.ts';
import { appendLegacyUser, holds, logText, plaintexts, rows, unmarkedText } from '../support/log-rewrite.ts';
import { readCollection, uncollected } from '../support/suite-log.ts';
import { dumpReadModels } from '../projections/support.ts';
import { TestClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import type { Db } from '../../src/db.ts';
import { addLogCommands } from '../../src/cli/log.ts';
import type { RewriteReport } from '../../src/eventstore/rewrite/encrypt-personal-data.ts';
import { type MergeStats, mergeCollection } from './merge.ts';

const COLLECTION = process.env.CORE_SUITE_LOG_DIR;
// This file's own databases are not part of the collection it reads.
delete process.env.CORE_SUITE_LOG_DIR;

// Floors a whole run clears by far (measured: see the report of issue 32's whole-suite check), so a run of a few
// files, or a collector that stopped collecting, cannot pass as the whole suite.
const MIN_FILES = 60;
const MIN_SUITES = 70;
const MIN_TYPES = 120;
const MIN_EVENTS = 7_000;

const HASHES = ['scrypt$16384$8$1$c2FsdHNhbHQ$d2hvbGUtc3VpdGUtb25l', 'scrypt$16384$8$1$c2FsdHNhbHQ$d2hvbGUtc3VpdGUtdHdv'];

/** Runs `core-server log <args>` through the CLI's own command definitions, on `db`; returns what it printed. */
async function cli(db: Db, args: string[]): Promise<string[]> {
  const program = new Command().exitOverride();
  addLogCommands(program, {
    config: () => loadConfig({ DATA_DIR: '/tmp/core-server-test-unused' }),
    // The command closes what it opened: here a handle on the check's database, which stays open.
    open: async () => ({ knex: db.knex, close: async () => {} }),
    fail: (message) => new Error(message),
  });
  const printed: string[] = [];
  const log = console.log;
  console.log = (...parts: unknown[]) => void printed.push(parts.join(' '));
  try {
    await program.parseAsync(['log', ...args], { from: 'user' });
  } finally {
    console.log = log;
  }
  return printed;
}

/** The stored failure of every read model that stopped (which event, and why), for the failure's message. */
async function failures(db: Db): Promise<string> {
  const rows = (await db.knex('projection_checkpoints').whereNotNull('failure').select('name', 'failure')) as { name: string; failure: unknown }[];
  return rows.map((r) => `${r.name}: ${JSON.stringify(r.failure)}`).join('; ') || 'no failure stored';
}

/** The unmarked fields (after the rewrite) whose whole value is one of `values`, by "type.path", with counts. */
async function unmarkedHolders(db: Db, values: Set<string>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const walk = (type: string, at: string[], v: unknown): void => {
    if (typeof v === 'string' && values.has(v)) out[`${type}.${at.join('.')}`] = (out[`${type}.${at.join('.')}`] ?? 0) + 1;
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(type, [...at, Array.isArray(v) ? '[]' : k], x);
  };
  for (const row of await rows(db.knex)) walk(row.type, [], row.data);
  return out;
}

/** The check on `backend` (the Postgres one needs TEST_DATABASE_URL, as every suite's Postgres half does). */
export function describeWholeSuiteCheck(backend: Backend): void {
  if (!backends().includes(backend)) return;
  describe(`log encrypt-personal-data on the whole test suite's events (${backend})`, () => {
    let db: Db;
    let dir: string;
    let stats: MergeStats;
    let clock: TestClock;
    let projected: Record<string, unknown[]>;
    let plainBefore: Map<string, string[]>;
    let report: RewriteReport;
    const timings: Record<string, number> = {};
    const timed = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      const t0 = performance.now();
      try {
        return await fn();
      } finally {
        timings[name] = Math.round(performance.now() - t0);
      }
    };

    before(async () => {
      if (!COLLECTION) throw new Error('no collection of the suite\'s events: this check is the last step of `npm test` (test/suite-log/run.ts), which collects them; to run it alone, keep one: CORE_SUITE_LOG_DIR=<new dir> npm test, then CORE_SUITE_LOG_DIR=<that dir> npx mocha --config .mocharc.suite-log.json');
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-suitelog-check-'));
      db = await openTestDb(backend);
      const suites = readCollection(COLLECTION, backend);
      stats = await timed('merge', () => mergeCollection(db.knex, suites));
      // Two events of a user registered before password hashes left the log (the suite writes none any more).
      await appendLegacyUser(db, { id: crypto.randomUUID(), email: 'whole.suite@legacy.example', name: 'Hole Sweet' }, HASHES);
      console.log(`      collection (${backend}): ${JSON.stringify({ ...stats, uncollected: uncollected(COLLECTION, backend).length })}`);
    });
    after(async () => {
      if (timings.merge !== undefined) console.log(`      times (${backend}, ms): ${JSON.stringify(timings)}`);
      await db?.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('the collection is the whole suite\'s: events of most kinds from most test files', () => {
      const short = `the collection holds ${stats.events} events of ${stats.types} types from ${stats.suites} test databases of ${stats.files} files: fewer than a whole run writes (${MIN_EVENTS} events, ${MIN_TYPES} types, ${MIN_SUITES} databases, ${MIN_FILES} files). Was it made by a run of some files only?`;
      expect(stats.files, short).to.be.at.least(MIN_FILES);
      expect(stats.suites, short).to.be.at.least(MIN_SUITES);
      expect(stats.types, short).to.be.at.least(MIN_TYPES);
      expect(stats.events, short).to.be.at.least(MIN_EVENTS);
      expect(stats.opened, 'personal values opened back to plaintext').to.be.greaterThan(1000);
    });

    it('every read model projects from the merged log', async () => {
      plainBefore = await plaintexts(db.knex);
      const last = (await db.knex('es_events').max('created_at as at').first()) as { at: Date };
      clock = new TestClock(new Date(last.at));
      const svc = await startService(backend, { db, clock });
      try {
        // settle()'s 30 s is for a suite's log; this one is the whole suite's.
        const head = await svc.app.store.lastCommittedPosition();
        await timed('project', () => svc.app.runner.waitFor(head, svc.app.runner.projections, 600_000)).catch(async (err: unknown) => {
          throw new Error(`${err instanceof Error ? err.message : String(err)}: ${await failures(db)}`);
        });
        projected = await dumpReadModels(db.knex);
        const skips = await db.knex('projection_skips').count<{ n: string }[]>('* as n');
        console.log(`      read model rows: ${Object.values(projected).reduce((n, r) => n + r.length, 0)} in ${Object.keys(projected).length} tables; projection skips: ${skips[0]?.n}`);
      } finally {
        await svc.app.close();
      }
    });

    it('`log backup` and `log encrypt-personal-data` rewrite it, reporting every plaintext value and every hash', async () => {
      // Counted independently: some suites store old user events of their own (ours are two more).
      const hashes = Number(((await db.knex.raw(`select count(*)::int as n from es_events where type in ('UserRegistered', 'PasswordChanged') and data->'password_hash' is not null`)).rows as { n: number }[])[0]?.n);
      expect(hashes).to.be.at.least(2);
      const file = path.join(dir, 'es_events.jsonl');
      const backup = await timed('backup', () => cli(db, ['backup', '--to', file]));
      expect(backup[0]).to.equal(`backup of ${stats.events + 2} events written to ${file}`);
      const printed = await timed('rewrite', () => cli(db, ['encrypt-personal-data', '--backup', file, '--json']));
      report = JSON.parse(printed.join('\n')) as RewriteReport;
      expect(report.events_scanned).to.equal(stats.events + 2);
      expect(report.password_hashes_removed).to.equal(hashes);
      const sealed = Object.values(report.fields).flatMap((f) => Object.values(f)).reduce((a, b) => a + b, 0);
      expect(sealed).to.equal([...plainBefore.values()].flat().length);
      console.log(`      rewrite: ${JSON.stringify({ ...report, fields: Object.keys(report.fields).length, backup: undefined })}`);
    });

    it('leaves no plaintext personal value and no password hash in es_events', async () => {
      expect(await plaintexts(db.knex)).to.deep.equal(new Map());
      const text = (await logText(db.knex)).join('\n');
      for (const h of HASHES) expect(text).to.not.include(h);
      expect(text).to.not.include('password_hash');
      // Searched as text too, every distinct value of more than a few characters that no unmarked field also holds
      // (a suite may name an organization, which is not personal, as it names a customer).
      const unmarked = await unmarkedText(db.knex);
      const distinct = [...new Set([...plainBefore.values()].flat())].filter((v) => v.length >= 8);
      const values = distinct.filter((v) => !holds(unmarked, v));
      console.log(`      distinct personal values searched as text: ${values.length}; also in the text of unmarked fields: ${distinct.length - values.length}`);
      console.log(`      unmarked fields whose whole value equals a personal value (event type.field: count): ${JSON.stringify(await unmarkedHolders(db, new Set(distinct.filter((v) => !values.includes(v)))))}`);
      expect(values.length).to.be.greaterThan(300);
      expect(values.filter((v) => holds(text, v))).to.deep.equal([]);
    });

    it('every read model rebuilt from the rewritten log equals the one projected before', async () => {
      const svc = await startService(backend, { db, clock });
      try {
        await timed('rebuild', () => svc.app.runner.rebuild([])).catch(async (err: unknown) => {
          throw new Error(`${err instanceof Error ? err.message : String(err)}: ${await failures(db)}`);
        });
        const rebuilt = await dumpReadModels(db.knex);
        expect(Object.keys(rebuilt)).to.deep.equal(Object.keys(projected));
        for (const [table, before] of Object.entries(projected)) {
          const after = rebuilt[table] ?? [];
          expect(after.length, table).to.equal(before.length);
          const differing = before.findIndex((row, i) => JSON.stringify(after[i]) !== JSON.stringify(row));
          if (differing >= 0) expect(after[differing], `${table} row ${differing}`).to.deep.equal(before[differing]);
        }
      } finally {
        await svc.app.close();
      }
    });
  });
}
