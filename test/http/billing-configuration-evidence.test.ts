// Relationship evidence over HTTP and the pre_existing flow it unlocks: PDF/image only (by content), committing is not
// acceptance, acceptance makes orders pre_existing with the monthly baseline exempt, and resolve as of earlier still answers.
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { Rng } from '../support/rng.ts';
import { rateOrders } from '../../src/domain/billing/configuration/rating.ts';
import { loadConfigurationSnapshot } from '../../src/queries/billing/configuration/snapshot.ts';
import { type ConfiguredSeller, type Relationship, baseline, buyer, configuredSeller, pricing, relate } from '../support/configuration.ts';

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(3000, 0x20), Buffer.from('\n%%EOF\n')]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(500, 1)]);
const EXE = Buffer.from('MZ\x90\x00 this is an executable, not a PDF');

for (const backend of backends()) {
  describe(`relationship evidence and pre_existing rating over HTTP (${backend})`, () => {
    let svc: TestService;
    let c: ConfiguredSeller;
    let rel: Relationship;
    let buyerId: string;
    const clock = new TestClock('2026-01-05T09:00:00.000Z');
    const eventCount = async () => Number((await svc.app.knex('es_events').count({ n: '*' }).first())?.n);

    /** Prepares one file per body and PUTs the bytes; returns the pending evidence ids. */
    async function upload(files: { filename: string; content_type: 'application/pdf' | 'image/png'; bytes: Buffer }[]): Promise<string[]> {
      const prep = await svc.call(ops['billing.configuration.relationship-evidence.prepare'], { relationship_id: rel.id, files: files.map((f) => ({ filename: f.filename, content_type: f.content_type, size: f.bytes.length })) }, c.billingStaff);
      expect(prep.status, JSON.stringify(prep.body)).to.equal(200);
      for (const [i, item] of prep.body.items.entries()) {
        const put = await fetch(item.upload_url, { method: item.upload_method, headers: item.upload_headers, body: files[i]?.bytes });
        expect(put.status).to.equal(200);
      }
      return prep.body.items.map((i) => i.id);
    }

    before(async () => {
      svc = await startService(backend, { clock });
      c = await configuredSeller(svc);
      buyerId = await buyer(svc);
      rel = await relate(svc, c, buyerId);
      await pricing(svc, c, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 1000, pre_existing: 300 }, minimum_fee: 0 });
      await baseline(svc, c, { effective_from: '2026-01-01', monthly_exempt_amount: 25_000 });
    });
    after(async () => svc?.close());

    it('only PDF or image types may be prepared; content that is not what it says is refused at commit and nothing is committed', async () => {
      const before = await eventCount();
      const text = await svc.send('billing.configuration.relationship-evidence.prepare', { relationship_id: rel.id, files: [{ filename: 'notes.txt', content_type: 'text/plain', size: 10 }] }, c.billingStaff);
      expect([text.status, text.body.code]).to.deep.equal([400, 'invalid_request']);
      const missing = await svc.send('billing.configuration.relationship-evidence.prepare', { relationship_id: '0190c6a2-0000-7000-8000-00000000dead', files: [{ filename: 'a.pdf', content_type: 'application/pdf', size: 10 }] }, c.billingStaff);
      expect([missing.status, missing.body.code]).to.deep.equal([404, 'relationship_not_found']);
      expect(await eventCount()).to.equal(before);
      const [fake = '', good = ''] = await upload([{ filename: 'contract.pdf', content_type: 'application/pdf', bytes: EXE }, { filename: 'good.pdf', content_type: 'application/pdf', bytes: PDF }]);
      const afterPrepare = await eventCount();
      const bad = await svc.call(ops['billing.configuration.relationship-evidence.insert'], { relationship_id: rel.id, evidence: [{ id: good }, { id: fake }] }, c.billingStaff);
      expect([bad.status, bad.body.code]).to.deep.equal([400, 'attachment_content_mismatch']);
      expect(await eventCount()).to.equal(afterPrepare);
      const list = await svc.call(ops['billing.configuration.relationship-evidence.list'], { relationship_id: rel.id }, c.billingStaff);
      expect(list.body).to.deep.equal({ items: [], pagination: null });
    });

    it('a claim with committed evidence still needs the decision; accepted, orders are pre_existing and the baseline is exempt month by month', async () => {
      const claim = await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: 'claim_pre_existing', reason: 'Trading since 2018' }, c.billingStaff);
      expect(claim.body.claim_status).to.equal('claimed');
      clock.advance(60_000);
      const [contract = '', photo = ''] = await upload([{ filename: '2018 contract.pdf', content_type: 'application/pdf', bytes: PDF }, { filename: 'ledger.png', content_type: 'image/png', bytes: PNG }]);
      const committed = await svc.call(ops['billing.configuration.relationship-evidence.insert'], { relationship_id: rel.id, evidence: [{ id: contract }, { id: photo }] }, c.billingStaff);
      expect(committed.status, JSON.stringify(committed.body)).to.equal(200);
      expect(committed.body.items.map((i) => i.filename)).to.deep.equal(['2018 contract.pdf', 'ledger.png']);
      expect(committed.body.relationship).to.include({ claim_status: 'claimed', classification: null, evidence_count: 2 });
      const again = await svc.call(ops['billing.configuration.relationship-evidence.insert'], { relationship_id: rel.id, evidence: [{ id: contract }] }, c.billingStaff);
      expect(again.body.relationship.evidence_count).to.equal(2);
      const list = await svc.call(ops['billing.configuration.relationship-evidence.list'], { relationship_id: rel.id, limit: 1 }, c.billingStaff);
      const next = await svc.call(ops['billing.configuration.relationship-evidence.list'], { relationship_id: rel.id, limit: 1, cursor: list.body.pagination?.cursor }, c.billingStaff);
      expect([...list.body.items, ...next.body.items].map((i) => i.id)).to.have.members([contract, photo]);
      expect(next.body.pagination).to.equal(null);
      const url = await svc.call(ops['billing.configuration.relationship-evidence.get'], { relationship_id: rel.id, id: contract }, c.billingStaff);
      expect(url.status).to.equal(200);
      expect(Buffer.from(await (await fetch(url.body.url)).arrayBuffer()).equals(PDF)).to.equal(true);
      const seller403 = await svc.call(ops['billing.configuration.relationship-evidence.get'], { relationship_id: rel.id, id: contract }, c.seller.token);
      expect(seller403.status).to.equal(403);
      const beforeAccept = clock.now().toISOString();
      clock.advance(60_000);

      const accepted = await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: 'accept_claim', reason: 'Contract of 2018 checked' }, c.billingStaff);
      expect(accepted.body).to.include({ claim_status: 'accepted', classification: 'pre_existing' });
      const resolveAt = (as_of?: string) => svc.call(ops['billing.configuration.resolve.get'], { subscription_id: c.subscriptionId, event: { seller: c.seller.orgId, buyer: buyerId, occurred_at: '2026-02-10T00:00:00Z' }, ...(as_of ? { as_of } : {}) }, c.billingStaff);
      const now = await resolveAt();
      expect(now.body).to.include({ classification: 'pre_existing', unclassifiable_reason: null });
      expect(now.body.relationship?.evidence_ids).to.have.members([contract, photo]);
      // What was believed before the decision: a claim awaiting its decision.
      const then = await resolveAt(beforeAccept);
      expect(then.body).to.include({ classification: null, unclassifiable_reason: 'claim_pending' });

      // Baseline 25,000 per month, pre_existing at 300 bps: Feb orders 10,000 + 10,000 exempt, 10,000 crosses (5,000 charged), then full.
      const s = (order_id: string, amount: number, occurred_at: string) => ({ order_id, seller: c.seller.orgId, buyer: buyerId, amount, occurred_at });
      const preview = await svc.call(ops['billing.configuration.preview.get'], {
        subscription_id: c.subscriptionId,
        samples: [s('d', 10_000, '2026-02-20T00:00:00Z'), s('a', 10_000, '2026-02-01T00:00:00Z'), s('c', 10_000, '2026-02-10T00:00:00Z'), s('b', 10_000, '2026-02-01T00:00:00Z'), s('m', 10_000, '2026-03-01T00:00:00Z')],
      }, c.billingStaff);
      expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
      expect(preview.body.items.map((i) => [i.order_id, i.classification, i.exempt_amount, i.fee])).to.deep.equal([
        ['d', 'pre_existing', 0, 300],
        ['a', 'pre_existing', 10_000, 0],
        ['c', 'pre_existing', 5_000, 150],
        ['b', 'pre_existing', 10_000, 0],
        ['m', 'pre_existing', 10_000, 0],
      ]);
      expect(preview.body.items.every((i) => i.baseline_revision_id !== null)).to.equal(true);
    });

    it('preview of a sample equals what the rating module (the one invoicing uses) gives the same order, over random samples (seeded)', async () => {
      const other = await buyer(svc);
      for (let run = 0; run < 12; run++) {
        const rng = new Rng(4242 + run);
        const samples = Array.from({ length: rng.int(1, 25) }, (_, i) => ({
          order_id: `r${run}-${i}`,
          seller: c.seller.orgId,
          buyer: rng.int(0, 1) ? buyerId : other,
          amount: rng.int(0, 40_000),
          occurred_at: new Date(Date.parse('2026-01-20T00:00:00Z') + rng.int(0, 60) * 86_400_000 + rng.int(0, 2) * 3_600_000).toISOString(),
        }));
        const preview = await svc.call(ops['billing.configuration.preview.get'], { subscription_id: c.subscriptionId, samples }, c.billingStaff);
        expect(preview.status, `seed ${4242 + run}: ${JSON.stringify(preview.body)}`).to.equal(200);
        const snapshot = await loadConfigurationSnapshot({ services: { knex: svc.app.knex } }, c.subscriptionId);
        const expected = rateOrders(snapshot, samples, preview.body.as_of).map((r) => {
          expect(r.status).to.equal('rated');
          const { status: _status, ...rest } = r as Extract<typeof r, { status: 'rated' }>;
          return rest;
        });
        expect(preview.body.items, `seed ${4242 + run}`).to.deep.equal(expected);
        expect(preview.body.totals[0]?.fee).to.equal(expected.reduce((s, r) => s + r.fee, 0));
      }
    });

    it('evidence is write-once: its upload URL is refused once used, and a committed file is what downloads serve', async () => {
      const prep = await svc.call(ops['billing.configuration.relationship-evidence.prepare'], { relationship_id: rel.id, files: [{ filename: 'letter.pdf', content_type: 'application/pdf', size: PDF.length }] }, c.billingStaff);
      const [item] = prep.body.items;
      if (!item) throw new Error('no item');
      expect((await fetch(item.upload_url, { method: 'PUT', headers: item.upload_headers, body: PDF })).status).to.equal(200);
      expect((await svc.call(ops['billing.configuration.relationship-evidence.insert'], { relationship_id: rel.id, evidence: [{ id: item.id }] }, c.billingStaff)).status).to.equal(200);
      const replay = await fetch(item.upload_url, { method: 'PUT', headers: item.upload_headers, body: Buffer.alloc(PDF.length, 0x3c) });
      expect(replay.status).to.equal(409);
      expect(((await replay.json()) as { code: string }).code).to.equal('upload_url_used');
      const url = await svc.call(ops['billing.configuration.relationship-evidence.get'], { relationship_id: rel.id, id: item.id }, c.billingStaff);
      const got = await fetch(url.body.url);
      expect(got.headers.get('content-type')).to.equal('application/pdf');
      expect(Buffer.from(await got.arrayBuffer()).equals(PDF)).to.equal(true);
    });
  });
}
