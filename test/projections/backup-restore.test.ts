// Backup and restore as docs/operations.md says: Postgres with pg_dump / pg_restore into a fresh database, the
// embedded database by copying the stopped DATA_DIR (database and objects); the file store by copying its directory.
// The restored service answers with the same read models, rebuilds equal ones from the restored log, and serves the
// same attachment bytes.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { expect } from 'chai';
import knexFactory from 'knex';
import { backends, openTestDb } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { type Db, openPglite, openPostgres } from '../../src/db.ts';
import { migrateLatest } from '../../migrations/index.ts';
import { dumpReadModels, writeSampleData } from './support.ts';

const run = promisify(execFile);

async function bytes(stream: Readable | null): Promise<Buffer> {
  if (!stream) throw new Error('object missing');
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/** The bytes of every committed attachment, by object key, as the service's object store serves them. */
async function attachmentBytes(svc: TestService): Promise<Record<string, string>> {
  const rows = (await svc.app.knex('billing_attachments').select('doc').orderBy('id')) as { doc: { status: string; object_key: string; committed_key?: string } }[];
  const out: Record<string, string> = {};
  for (const { doc } of rows.filter((r) => r.doc.status === 'committed')) {
    const key = doc.committed_key ?? doc.object_key;
    out[key] = crypto.createHash('sha256').update(await bytes(await svc.app.objects.get(key))).digest('hex');
  }
  return out;
}

/** A fresh, empty Postgres database (no migrations: pg_restore brings the schema), dropped on close. */
async function emptyPostgres(): Promise<Db> {
  const serverUrl = process.env.TEST_DATABASE_URL!;
  const name = `core_restore_${crypto.randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = openPostgres(url.toString(), 10);
  return {
    ...db,
    async close() {
      await db.close();
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
    },
  };
}

for (const backend of backends()) {
  describe(`backup and restore (${backend})`, () => {
    const dirs: string[] = [];
    const tempDir = () => {
      const d = fs.mkdtempSync(path.join(os.tmpdir(), 'core-backup-'));
      dirs.push(d);
      return d;
    };
    after(() => {
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    });

    it('a restored backup serves the same read models, rebuilds equal ones from its log, and serves the same objects', async () => {
      // The original: DATA_DIR's layout (pglite/ and objects/), its database on Postgres when that is the backend.
      const dataDir = tempDir();
      const objects = (dir: string) => ({ OBJECT_STORE: `file:${path.join(dir, 'objects')}` });
      let db: Db;
      if (backend === 'pglite') {
        db = await openPglite(path.join(dataDir, 'pglite'));
        await migrateLatest(db.knex);
      } else db = await openTestDb('postgres');
      const original = await startService(backend, { db, selfUrl: true, env: objects(dataDir) });
      let models: Record<string, unknown[]>;
      let files: Record<string, string>;
      const restoredDir = tempDir();
      let restoredDb: Db;
      try {
        await writeSampleData(original);
        await original.app.runner.catchUp();
        models = await dumpReadModels(original.app.knex);
        files = await attachmentBytes(original);
        expect(Object.keys(files).length).to.be.greaterThan(0);
        if (backend === 'postgres') {
          // Postgres: pg_dump while the service runs (one consistent snapshot), pg_restore into a fresh database.
          const dump = path.join(tempDir(), 'core.dump');
          await run('pg_dump', ['--format=custom', '--file', dump, db.url!]);
          restoredDb = await emptyPostgres();
          await run('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', restoredDb.url!, dump]);
          fs.cpSync(path.join(dataDir, 'objects'), path.join(restoredDir, 'objects'), { recursive: true });
        }
      } finally {
        await original.close();
      }
      if (backend === 'pglite') {
        // The embedded database: copy the whole DATA_DIR once the process stopped (database and objects together).
        fs.cpSync(dataDir, restoredDir, { recursive: true });
        restoredDb = await openPglite(path.join(restoredDir, 'pglite'));
      }
      const restored = await startService(backend, { db: restoredDb!, env: objects(restoredDir) });
      try {
        expect(await dumpReadModels(restored.app.knex)).to.deep.equal(models);
        // The log is the source of truth: every read model rebuilt from the restored log equals the original's.
        await restored.app.runner.rebuild();
        expect(await dumpReadModels(restored.app.knex)).to.deep.equal(models);
        expect(await attachmentBytes(restored)).to.deep.equal(files);
        // And it takes writes: a new organization's user signs in and reads its session.
        const me = await restored.signUp();
        expect(me.token).to.be.a('string');
      } finally {
        await restored.close();
      }
    });
  });
}
