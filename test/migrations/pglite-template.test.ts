// The first start's PGlite template (issue 31): a new data directory is a copy of a migrated database made at build
// time, used only when it fits this build; a directory that already holds a database is never touched.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openPglite } from '../../src/db.ts';
import { pgliteTemplate, writePgliteTemplate } from '../../src/pglite-template.ts';
import { migrateLatest, migrationSource } from '../../migrations/index.ts';

describe('the PGlite template of a first start', () => {
  let out: string;
  let template: string;
  before(async () => {
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'core-template-'));
    await writePgliteTemplate(out);
    template = path.join(out, 'pglite-template');
  });
  after(() => fs.rmSync(out, { recursive: true, force: true }));

  it('is found for the Postgres log it was made for, not for EventStoreDB (other migrations) nor beside the sources', async () => {
    expect(await pgliteTemplate('postgres', template)).to.equal(template);
    expect(await pgliteTemplate('esdb', template)).to.equal(undefined);
    expect(await pgliteTemplate('postgres')).to.equal(undefined);
  });

  it('is not used when its facts name other migrations than this build has', async () => {
    const copy = path.join(out, 'other');
    fs.cpSync(template, copy, { recursive: true });
    const facts = JSON.parse(fs.readFileSync(`${template}.json`, 'utf8')) as { migrations: string[] };
    fs.writeFileSync(`${copy}.json`, JSON.stringify({ ...facts, migrations: facts.migrations.slice(0, -1) }));
    expect(await pgliteTemplate('postgres', copy)).to.equal(undefined);
  });

  it('makes a new data directory a migrated database: nothing left to apply, and it takes writes', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-template-new-'));
    try {
      const db = await openPglite(dir, { template: async () => template });
      try {
        expect(await migrateLatest(db.knex)).to.deep.equal([]);
        const names = ((await db.knex('knex_migrations').orderBy('id').select('name')) as { name: string }[]).map((r) => r.name);
        expect(names).to.have.members(await migrationSource.getMigrations([]));
        await db.knex('idempotency_keys').insert({ scope: 's', key: 'k', operation: 'o', request_hash: 'h', seed: '0190c6a2-0000-7000-8000-0000000000f1', created_at: new Date() });
      } finally {
        await db.close();
      }
      // Reopened, it is the same database (the copy happens only for a directory without one).
      const again = await openPglite(dir, { template: async () => template });
      try {
        expect(Number(((await again.knex('idempotency_keys').count({ n: '*' })) as { n: string | number }[])[0]!.n)).to.equal(1);
      } finally {
        await again.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
