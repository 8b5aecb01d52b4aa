// Which failures mean "the database is unavailable" (answered 503 database_unavailable, retried with the same
// Idempotency-Key), told apart on the real error objects pg, knex and the server produce; and the Postgres pool
// giving up a connection whose server process was terminated, so the next query gets a live one.
import { expect } from 'chai';
import crypto from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { isDatabaseUnavailable } from '../../src/db-errors.ts';
import { toErrorResponse } from '../../src/http/errors.ts';
import { openPostgres, type Db } from '../../src/db.ts';
import { backends, openTestDb } from '../support/db.ts';
import { freePort, rejection } from '../support/process.ts';



/** Postgres `url` with another database or user. */
function withUrl(url: string, parts: { database?: string; user?: string }): string {
  const u = new URL(url);
  if (parts.database) u.pathname = `/${parts.database}`;
  if (parts.user) u.username = parts.user;
  return u.toString();
}

const serverUrl = process.env.TEST_DATABASE_URL;

describe('isDatabaseUnavailable on real errors', () => {
  it('a refused connection (pg, and knex through its pool) is unavailable, and answers 503 database_unavailable with Retry-After', async () => {
    const port = await freePort();
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/none` });
    const direct = await rejection(client.connect());
    const db = openPostgres(`postgres://postgres@127.0.0.1:${port}/none`, 2);
    try {
      const pooled = await rejection(db.knex.raw('select 1'));
      for (const err of [direct, pooled]) {
        expect(isDatabaseUnavailable(err)).to.equal(true);
        const out = toErrorResponse(err, 'billing.NoteInsertError', 'req-1');
        expect(out.status).to.equal(503);
        expect(out.body.code).to.equal('database_unavailable');
        expect(out.headers['Retry-After']).to.equal('1');
        expect(out.internal).to.equal(false);
      }
    } finally {
      await db.close();
    }
  });

  it('no pooled connection free within the acquire timeout (KnexTimeoutError) is unavailable', async () => {
    const pglite = new PGlite();
    await pglite.waitReady;
    const connection: Knex.SyncConnectionConfigProvider = () => ({ pglite }) as Knex.StaticConnectionConfig;
    const knex = knexFactory({ client: ClientPgLite, connection, acquireConnectionTimeout: 100 });
    try {
      await knex.raw('select 1'); // the connection is made (PGlite starts) before the timeout counts
      // PGlite's one connection is held by the transaction; a query outside it waits for the pool and times out.
      const err = await knex.transaction(async () => rejection(knex.raw('select 1')));
      expect(err).to.be.instanceOf(knexFactory.KnexTimeoutError);
      expect(isDatabaseUnavailable(err)).to.equal(true);
    } finally {
      await knex.destroy();
      if (!pglite.closed) await pglite.close();
    }
  });

  for (const backend of backends()) {
    it(`a statement the database refused is not: a unique violation, bad syntax, a value out of range (${backend}); nor a plain error`, async () => {
      const db = await openTestDb(backend);
      try {
        await db.knex.raw('create table fault_probe (id int primary key, at date)');
        await db.knex.raw('insert into fault_probe values (1, null)');
        const refused = [
          await rejection(db.knex.raw('insert into fault_probe values (1, null)')),
          await rejection(db.knex.raw('selec 1')),
          await rejection(db.knex.raw(`insert into fault_probe values (2, '0000-01-01')`)),
          await rejection(db.knex.raw('select 1 / 0')),
        ];
        expect(refused.map((e) => (e as { code?: string }).code)).to.deep.equal(['23505', '42601', '22008', '22012']);
        for (const err of [...refused, new Error('boom'), new TypeError('x is undefined'), 'text', null, undefined]) {
          expect(isDatabaseUnavailable(err), String(err)).to.equal(false);
          if (err instanceof Error) expect(toErrorResponse(err, 'T', 'r').status).to.equal(500);
        }
      } finally {
        await db.close();
      }
    });
  }

  if (!serverUrl) {
    it('the errors of a terminated or refused Postgres connection need PostgreSQL', () => {
      console.log('      terminated backends and CONNECTION LIMIT not tried: TEST_DATABASE_URL is not set (PGlite has no connections to end)');
      expect(serverUrl).to.equal(undefined);
    });
    return;
  }

  describe('on PostgreSQL', () => {
    let db: Db;
    let admin: Knex;
    before(async () => {
      db = await openTestDb('postgres');
      admin = knexFactory({ client: 'pg', connection: db.url, pool: { min: 0, max: 1 } });
    });
    after(async () => {
      await admin?.destroy();
      await db?.close();
    });

    it('a backend terminated under a query (57P01), and pg\'s errors of the closed connection after it, are unavailable', async () => {
      const client = new pg.Client({ connectionString: db.url, application_name: 'fault probe' });
      const events: unknown[] = [];
      client.on('error', (err) => events.push(err));
      await client.connect();
      const running = rejection(client.query('select pg_sleep(30)'));
      await admin.raw(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'fault probe' and state = 'active'`);
      const underQuery = await running;
      expect((underQuery as { code?: string }).code).to.equal('57P01');
      while (events.length === 0) await new Promise((r) => setTimeout(r, 5));
      const after = await rejection(client.query('select 1'));
      for (const err of [underQuery, ...events, after]) expect(isDatabaseUnavailable(err), String(err)).to.equal(true);
      expect(String(events.at(-1))).to.include('Connection terminated unexpectedly');
      expect(String(after)).to.include('not queryable');
    });

    it('a role over its CONNECTION LIMIT (53300), through pg and through the knex pool, is unavailable', async () => {
      const role = `fault_role_${crypto.randomBytes(4).toString('hex')}`;
      await admin.raw(`create role ${role} login connection limit 0`);
      const limited = openPostgres(withUrl(db.url!, { user: role }), 2);
      try {
        const client = new pg.Client({ connectionString: withUrl(db.url!, { user: role }) });
        const errs = [await rejection(client.connect()), await rejection(limited.knex.raw('select 1'))];
        for (const err of errs) {
          expect((err as { code?: string }).code).to.equal('53300');
          expect(isDatabaseUnavailable(err)).to.equal(true);
        }
      } finally {
        await limited.close();
        await admin.raw(`drop role ${role}`);
      }
    });

    it('the pool hands out a live connection after the one it used was terminated under a query', async () => {
      const pool = openPostgres(db.url!, 1);
      try {
        await pool.knex.raw(`set application_name = 'fault pool'`);
        const running = rejection(pool.knex.raw('select pg_sleep(30)'));
        while (Number((await admin.raw(`select count(*) as n from pg_stat_activity where application_name = 'fault pool' and state = 'active'`)).rows[0].n) === 0) {
          await new Promise((r) => setTimeout(r, 5));
        }
        await admin.raw(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'fault pool'`);
        expect(isDatabaseUnavailable(await running)).to.equal(true);
        // The only pooled connection was the terminated one: the next query must not be sent on it.
        expect((await pool.knex.raw('select 1 as one')).rows).to.deep.equal([{ one: 1 }]);
      } finally {
        await pool.close();
      }
    });

    it('after every connection of the pool is terminated while idle, the next queries succeed', async () => {
      const pool = openPostgres(db.url!, 4);
      try {
        await Promise.all([1, 2, 3, 4].map(() => pool.knex.raw('select pg_sleep(0.05)')));
        // The pool's idle connections, each to be told by its server that it was terminated (read off its socket: a query
        // sent before the client read that would meet the termination itself, a 503 a retry fixes, not what this checks).
        const idle = (pool.knex.client as { pool: { free: { resource: pg.Client }[] } }).pool.free.map((f) => f.resource);
        expect(idle).to.have.length(4);
        const told = idle.map((c) => new Promise<void>((resolve) => c.once('end', () => resolve())));
        const others = 'from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()';
        const ended = await admin.raw(`select count(pg_terminate_backend(pid))::int as n ${others}`);
        expect(ended.rows[0].n).to.be.at.least(4);
        await Promise.all(told);
        const ones = await Promise.all([1, 2, 3, 4, 5, 6].map(() => pool.knex.raw('select 1 as one')));
        expect(ones.map((r) => r.rows[0].one)).to.deep.equal([1, 1, 1, 1, 1, 1]);
      } finally {
        await pool.close();
      }
    });
  });
});
