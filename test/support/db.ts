// Test databases: PGlite always; a fresh Postgres database per suite when TEST_DATABASE_URL is set.
import crypto from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { type Db, openPglite, openPostgres } from '../../src/db.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { migrateLatest } from '../../migrations/index.ts';
import { collectedOnClose } from './suite-log.ts';

/** The storage backends every storage and HTTP suite runs on. */
export type Backend = 'pglite' | 'postgres';

/** PGlite always, plus Postgres when TEST_DATABASE_URL is set. */
export function backends(): Backend[] {
  return process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

/** A new, migrated, empty database that is dropped on close (its events collected first in `npm test`: ./suite-log.ts). */
export async function openTestDb(backend: Backend): Promise<Db> {
  const db = backend === 'pglite' ? await openPglite() : await createPostgresDatabase();
  await migrateLatest(db.knex);
  return collectedOnClose(db, backend);
}

async function createPostgresDatabase(): Promise<Db> {
  const serverUrl = process.env.TEST_DATABASE_URL!;
  const name = `core_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = openPostgres(url.toString(), 30);
  return {
    ...db,
    async close() {
      await db.close();
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
    },
  };
}

/**
 * A new, migrated Postgres database owned by a login role of its own, which the service connects as: not a
 * superuser, so the database's CONNECTION LIMIT binds it. `admin` is a superuser connection to the same
 * database (one connection; it changes the limit and ends the service's connections). Dropped, with the role, on close.
 */
export async function openOwnedPostgresDb(): Promise<{ db: Db; admin: Knex; name: string }> {
  const serverUrl = process.env.TEST_DATABASE_URL!;
  const name = `core_test_${crypto.randomBytes(6).toString('hex')}`;
  const server = knexFactory({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
  await server.raw(`create role ${name} login`);
  await server.raw(`create database ${name} owner ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const admin = knexFactory({ client: 'pg', connection: url.toString(), pool: { min: 0, max: 1 } });
  url.username = name;
  url.password = '';
  const db = openPostgres(url.toString(), 30);
  await migrateLatest(db.knex);
  return {
    name,
    admin,
    db: collectedOnClose(
      {
        ...db,
        async close() {
          await db.close();
          await admin.destroy();
          await server.raw(`drop database if exists ${name} with (force)`);
          await server.raw(`drop role if exists ${name}`);
          await server.destroy();
        },
      },
      'postgres',
    ),
  };
}

/** A suite's database and event store, opened in its `before` hook and closed in its `after` hook. */
export interface SuiteStore {
  readonly db: Db;
  readonly store: PostgresEventStore;
}

/** Registers hooks that open a fresh database and event store for the calling suite, and close them. */
export function suiteStore(backend: Backend): SuiteStore {
  let opened: { db: Db; store: PostgresEventStore } | null = null;
  before(async () => {
    const db = await openTestDb(backend);
    opened = { db, store: new PostgresEventStore(db) };
  });
  after(async () => {
    await opened?.store.close();
    await opened?.db.close();
  });
  const current = () => {
    if (!opened) throw new Error('the suite store is open only inside its suite\'s tests');
    return opened;
  };
  return {
    get db() {
      return current().db;
    },
    get store() {
      return current().store;
    },
  };
}
