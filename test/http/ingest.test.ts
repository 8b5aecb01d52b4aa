// Async imports of sellable items over HTTP: a supplier's CSV and NDJSON files, bad rows reported by line while the good
// ones land in the read model, re-imports that change nothing, malformed files, who may import, and crash-safe processing.
import { expect } from 'chai';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { installIntegration, integrationHeaders } from '../support/integrations.ts';
import { type Caller, allItems, importFile, ingestCall, itemsCsv, upload } from '../support/ingest.ts';
import { ops } from '../support/ops.ts';
import { runImportsPass } from '../../src/workers/ingest/imports.ts';
import { importDoc } from '../../src/queries/ingest/imports.ts';
import { type TestS3, startS3rver } from '../support/s3.ts';

for (const backend of backends()) {
  describe(`async imports of sellable items (${backend})`, function () {
    this.timeout(300_000);
    let svc: TestService;
    let supplier: Caller;
    const chunkEvents = async () => Number((await svc.app.knex('es_events').where({ type: 'ImportChunkRecorded' }).count({ n: '*' }))[0]?.n ?? 0);
    before(async () => {
      svc = await startService(backend);
      supplier = { token: (await svc.signUp({ kind: 'supplier' })).token };
    });
    after(async () => svc?.close());

    it('imports a CSV of 10,000 items with 3 bad rows: exactly those 3 are reported, the rest are in the catalogue; importing it again changes nothing', async () => {
      const csv = itemsCsv(10_000, {
        17: 'SKU-00017,Bonnet,,12.50,GBP,3,,', // price not in minor units
        5000: 'SKU-05000,Headlamp,,100,XXX,1,,', // unknown currency
        9999: ',Wing mirror,,100,GBP,-2,,', // no SKU and a negative stock
      });
      const done = await importFile(svc, supplier, 'csv', csv);
      expect(done.status).to.equal(200);
      expect(done.body.status).to.equal('completed');
      expect(done.body.counts).to.deep.equal({ total: 10_000, ok: 9_997, failed: 3 });
      // Line numbers are the file's: the header is line 1, item i is on line i + 1.
      expect(done.body.errors.items.map((e) => [e.line, e.field])).to.deep.equal([
        [18, 'price_amount'],
        [5001, 'price_currency'],
        [10_000, 'sku'],
        [10_000, 'stock_quantity'],
      ]);
      expect(done.body.errors.pagination).to.equal(null);
      const items = await allItems(svc, supplier);
      expect(items).to.have.length(9_997);
      expect(items.map((i) => i.sku)).to.not.include.members(['SKU-00017', 'SKU-05000']);
      const one = items.find((i) => i.sku === 'SKU-00042');
      expect(one).to.deep.include({ title: 'Front wing panel 42', description: 'Fits, with "clips"', price: { amount: 1042, currency: 'GBP' }, stock_quantity: 42, hca_ids: ['HCA-BODY-0', 'HCA-LIGHT-1'], part_numbers: ['PN-42'], import_id: done.body.id });

      svc.clock.advance(60_000);
      const again = await importFile(svc, supplier, 'csv', csv);
      expect(again.body.counts).to.deep.equal({ total: 10_000, ok: 9_997, failed: 3 });
      const after = await allItems(svc, supplier);
      expect(after).to.deep.equal(items);

      // One changed row is updated; the others stay as they were.
      svc.clock.advance(60_000);
      const changed = await importFile(svc, supplier, 'csv', itemsCsv(3, {}, (i) => (i === 2 ? 'Front wing panel, primed' : `Front wing panel ${i}`)));
      expect(changed.body.counts).to.deep.equal({ total: 3, ok: 3, failed: 0 });
      const [first, second] = (await ingestCall(svc, supplier, 'sellable-items.list', { limit: 2 })).body.items;
      expect(first).to.deep.equal(items[0]);
      expect(second?.title).to.equal('Front wing panel, primed');
      expect(second?.import_id).to.equal(changed.body.id);
      expect(second?.created_at).to.equal(items[1]?.created_at);
      expect(Date.parse(second?.updated_at ?? '')).to.be.greaterThan(Date.parse(items[1]?.updated_at ?? ''));
    });

    it('imports NDJSON: unreadable lines, unknown fields and bad values are reported by line and field; blank lines are skipped', async () => {
      const me: Caller = { token: (await svc.signUp({ kind: 'supplier' })).token };
      const good = (sku: string) => JSON.stringify({ sku, title: 'Brake pad set', price: { amount: 4599, currency: 'EUR' }, stock_quantity: 12, hca_ids: ['HCA-BRAKE-2'] });
      const lines = [good('BP-1'), '{"sku": "BP-2", ', '', JSON.stringify({ sku: 'BP-3', title: 'x', price: { amount: 1, currency: 'EUR' }, stock_quantity: 1, colour: 'red' }), good('BP-4'), JSON.stringify({ sku: 'BP-5', title: 'x', price: { amount: 1.5, currency: 'EUR' }, stock_quantity: 1 }), good('BP-1'), '[1,2]'];
      const done = await importFile(svc, me, 'ndjson', lines.join('\n'));
      expect(done.body.status).to.equal('completed');
      expect(done.body.counts).to.deep.equal({ total: 7, ok: 2, failed: 5 });
      expect(done.body.errors.items.map((e) => [e.line, e.field])).to.deep.equal([
        [2, null],
        [4, 'colour'],
        [6, 'price.amount'],
        [7, 'sku'],
        [8, null],
      ]);
      const items = await allItems(svc, me);
      expect(items.map((i) => [i.sku, i.description, i.part_numbers])).to.deep.equal([
        ['BP-1', null, []],
        ['BP-4', null, []],
      ]);
    });

    it('fails a file that cannot be read as a whole (no header, wrong columns, not UTF-8) and says why', async () => {
      const me: Caller = { token: (await svc.signUp({ kind: 'supplier' })).token };
      const wrongColumns = await importFile(svc, me, 'csv', 'sku,name,price\nA,B,1\n');
      expect(wrongColumns.body.status).to.equal('failed');
      expect(wrongColumns.body.failure?.code).to.equal('invalid_header');
      expect(wrongColumns.body.failure?.message).to.match(/missing columns title, price_amount, price_currency, stock_quantity; unknown columns name, price/);
      // An NDJSON file sent as a CSV import is the wrong format: its first line is no header.
      const ndjsonAsCsv = await importFile(svc, me, 'csv', `${JSON.stringify({ sku: 'A', title: 'B', price: { amount: 1, currency: 'GBP' }, stock_quantity: 1 })}\n`);
      expect([ndjsonAsCsv.body.status, ndjsonAsCsv.body.failure?.code]).to.deep.equal(['failed', 'invalid_header']);
      const latin1 = await importFile(svc, me, 'csv', Buffer.concat([Buffer.from('sku,title,price_amount,price_currency,stock_quantity\nA,Caf'), Buffer.from([0xe9]), Buffer.from(',1,GBP,1\n')]));
      expect([latin1.body.status, latin1.body.failure?.code]).to.deep.equal(['failed', 'invalid_encoding']);
      const unbalanced = await importFile(svc, me, 'csv', 'sku,title,price_amount,price_currency,stock_quantity\nA,"Bumper,100,GBP,1\n');
      expect(unbalanced.body.counts).to.deep.equal({ total: 1, ok: 0, failed: 1 });
      expect(await allItems(svc, me)).to.deep.equal([]);
    });

    it('refuses a wrong format or kind, a commit before the upload, and an upload of another size; writes nothing', async () => {
      const me: Caller = { token: (await svc.signUp({ kind: 'supplier' })).token };
      const before = Number((await svc.app.knex('es_events').count({ n: '*' }))[0]?.n);
      for (const body of [{ kind: 'sellable_items', format: 'xml', size: 10 }, { kind: 'vehicles', format: 'csv', size: 10 }, { kind: 'sellable_items', format: 'csv', size: 0 }, { kind: 'sellable_items', format: 'csv', size: 10, extra: 1 }]) {
        const res = await svc.send('async-imports.prepare', body, 'token' in me ? me.token : null);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.code).to.equal('invalid_request');
      }
      expect(Number((await svc.app.knex('es_events').count({ n: '*' }))[0]?.n)).to.equal(before);
      const prep = await ingestCall(svc, me, 'async-imports.prepare', { kind: 'sellable_items', format: 'csv', size: 100 });
      const early = await ingestCall(svc, me, 'async-imports.commit', { id: prep.body.id });
      expect([early.status, early.body.code]).to.deep.equal([409, 'import_not_uploaded']);
      const short = await fetch(prep.body.upload_url, { method: 'PUT', headers: prep.body.upload_headers, body: 'sku,title\n' });
      expect(short.status).to.be.below(300);
      const mismatch = await ingestCall(svc, me, 'async-imports.commit', { id: prep.body.id });
      expect([mismatch.status, mismatch.body.code]).to.deep.equal([400, 'import_size_mismatch']);
      const still = await ingestCall(svc, me, 'async-imports.get', { id: prep.body.id });
      expect(still.body.status).to.equal('awaiting_upload');
      // Nothing uploaded in time: the worker expires the import with its URL.
      svc.clock.advance(3_601_000);
      await svc.app.workers.runOnce();
      expect((await ingestCall(svc, me, 'async-imports.get', { id: prep.body.id })).body.status).to.equal('expired');
      const late = await ingestCall(svc, me, 'async-imports.commit', { id: prep.body.id });
      expect(late.body.status).to.equal('expired');
    });

    it('notices an upload that was never committed and processes it', async () => {
      const me: Caller = { token: (await svc.signUp({ kind: 'supplier' })).token };
      const id = await upload(svc, me, 'csv', itemsCsv(5));
      const pass = await runImportsPass(svc.app);
      expect(pass.committed).to.include(id);
      expect(pass.completed).to.include(id);
      const got = await ingestCall(svc, me, 'async-imports.get', { id });
      expect([got.body.status, got.body.counts.ok]).to.deep.equal(['completed', 5]);
      const again = await ingestCall(svc, me, 'async-imports.commit', { id });
      expect([again.status, again.body.status]).to.deep.equal([200, 'completed']);
    });

    it('records each chunk once when processing stops half-way and starts again, or runs twice at once', async () => {
      const me: Caller = { token: (await svc.signUp({ kind: 'supplier' })).token };
      const id = await upload(svc, me, 'csv', itemsCsv(3_500, { 2_100: 'BAD,,,,,,,' }));
      expect((await ingestCall(svc, me, 'async-imports.commit', { id })).body.status).to.equal('queued');
      const eventsBefore = await chunkEvents();
      // A crash after two chunks: the import stays open with what was recorded.
      await runImportsPass(svc.app, { maxChunks: 2 });
      const half = await ingestCall(svc, me, 'async-imports.get', { id });
      expect([half.body.status, half.body.counts]).to.deep.equal(['processing', { total: 2_000, ok: 2_000, failed: 0 }]);
      // Two workers pick it up at the same time.
      const doc = await importDoc(svc.app.knex, id);
      if (!doc) throw new Error('import missing');
      await Promise.all([runImportsPass(svc.app), runImportsPass(svc.app)]);
      const done = await ingestCall(svc, me, 'async-imports.get', { id });
      expect([done.body.status, done.body.counts]).to.deep.equal(['completed', { total: 3_500, ok: 3_499, failed: 1 }]);
      expect(done.body.errors.items.map((e) => e.line)).to.deep.equal([2_101, 2_101, 2_101, 2_101, 2_101]);
      expect(await chunkEvents()).to.equal(eventsBefore + 4);
      expect(await allItems(svc, me)).to.have.length(3_499);
    });

    it('is for supplier organizations only; another organization sees no import', async () => {
      const repairer = await svc.signUp({ kind: 'repairer' });
      const id = await upload(svc, supplier, 'csv', itemsCsv(1));
      for (const [op, body] of [
        [ops['async-imports.prepare'], { kind: 'sellable_items', format: 'csv', size: 10 }],
        [ops['async-imports.commit'], { id }],
        [ops['async-imports.get'], { id }],
        [ops['sellable-items.list'], {}],
      ] as const) {
        const res = await svc.send(op.id, body, repairer.token);
        expect([res.status, res.body.code], op.id).to.deep.equal([403, 'forbidden']);
      }
      const otherSupplier = await svc.signUp({ kind: 'supplier' });
      const foreign = await svc.call(ops['async-imports.get'], { id }, otherSupplier.token);
      expect([foreign.status, foreign.body.code]).to.deep.equal([404, 'import_not_found']);
      expect((await svc.call(ops['sellable-items.list'], {}, otherSupplier.token)).body.items).to.deep.equal([]);
    });

    it('has an integrations-API twin for keys with the supplier scope; a key without it is refused', async () => {
      const owner = await svc.signUp({ kind: 'supplier' });
      const withScope = await installIntegration(svc, { token: owner.token, scopes: ['supplier'] });
      const without = await installIntegration(svc, { token: owner.token, scopes: ['repairer'] });
      const app: Caller = { headers: integrationHeaders(withScope) };
      const done = await importFile(svc, app, 'ndjson', `${JSON.stringify({ sku: 'INT-1', title: 'Tail lamp', price: { amount: 2599, currency: 'GBP' }, stock_quantity: 4 })}\n`);
      expect([done.status, done.body.status, done.body.counts.ok]).to.deep.equal([200, 'completed', 1]);
      // The same catalogue as the organization's users see.
      expect((await svc.call(ops['sellable-items.list'], {}, owner.token)).body.items.map((i) => i.sku)).to.deep.equal(['INT-1']);
      for (const [id, body] of [
        ['async-imports.prepare', { kind: 'sellable_items', format: 'csv', size: 10 }],
        ['async-imports.get', { id: done.body.id }],
        ['sellable-items.list', {}],
      ] as const) {
        const res = await svc.send(id, body, null, integrationHeaders(without), 'integrations');
        expect([res.status, res.body.code], id).to.deep.equal([403, 'forbidden']);
      }
    });
  });
}

// Issue 25: an import's upload is write-once. The file store refuses a used upload URL; s3rver (like S3 without conditional
// writes) stores a second PUT at the upload key, which processing never reads: it reads the copy frozen at commit.
for (const [backend, storage] of backends().flatMap((b) => [[b, 'file'], [b, 's3']] as const)) {
  describe(`async import uploads are write-once (${backend}, ${storage} store)`, function () {
    this.timeout(120_000);
    let s3: TestS3 | undefined;
    let svc: TestService;
    before(async () => {
      s3 = storage === 's3' ? await startS3rver() : undefined;
      svc = await startService(backend, { env: s3?.env ?? {} });
    });
    after(async () => {
      await svc?.close();
      await s3?.close();
    });

    it('an upload landing twice neither replaces the committed file nor is processed twice', async () => {
      const me: Caller = { token: (await svc.signUp({ kind: 'supplier' })).token };
      const first = itemsCsv(5);
      const second = itemsCsv(5, {}, (i) => `Front wing panXl ${i}`);
      expect(second.length).to.equal(first.length);
      const prep = await ingestCall(svc, me, 'async-imports.prepare', { kind: 'sellable_items', format: 'csv', size: Buffer.byteLength(first) });
      expect((await fetch(prep.body.upload_url, { method: 'PUT', headers: prep.body.upload_headers, body: first })).status).to.equal(200);
      expect((await ingestCall(svc, me, 'async-imports.commit', { id: prep.body.id })).body.status).to.equal('queued');
      const replay = await fetch(prep.body.upload_url, { method: 'PUT', headers: prep.body.upload_headers, body: second });
      if (storage === 'file') expect([replay.status, ((await replay.json()) as { code: string }).code]).to.deep.equal([409, 'upload_url_used']);
      else await replay.body?.cancel();
      await svc.app.workers.runOnce();
      await svc.app.workers.runOnce();
      const done = await ingestCall(svc, me, 'async-imports.get', { id: prep.body.id });
      expect([done.body.status, done.body.counts]).to.deep.equal(['completed', { total: 5, ok: 5, failed: 0 }]);
      expect((await allItems(svc, me)).map((i) => i.title)).to.deep.equal([1, 2, 3, 4, 5].map((i) => `Front wing panel ${i}`));
      const chunks = await svc.app.knex('es_events').where({ type: 'ImportChunkRecorded' }).andWhereRaw(`data->>'import_id' = ?`, [prep.body.id]).count({ n: '*' });
      expect(Number(chunks[0]?.n)).to.equal(1);
    });
  });
}
