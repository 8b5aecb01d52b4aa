// Billing configuration over HTTP: relationships (idempotent), claims and decisions, effective-dated baselines and
// pricing (supersede without overlaps), resolve on two time axes, preview failing closed, bounded history, bad input.
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { ops } from '../support/ops.ts';
import { type ConfiguredSeller, baseline, buyer, configuredSeller, pricing, relate } from '../support/configuration.ts';

const MISSING = '0190c6a2-0000-7000-8000-00000000dead';

for (const backend of backends()) {
  describe(`billing configuration over HTTP (${backend})`, () => {
    let svc: TestService;
    let c: ConfiguredSeller;
    const clock = new TestClock('2026-01-05T09:00:00.000Z');
    const eventCount = async () => Number((await svc.app.knex('es_events').count({ n: '*' }).first())?.n);
    const resolveAt = (occurred_at: string, buyerId: string, as_of?: string) =>
      svc.call(ops['billing.configuration.resolve.get'], { subscription_id: c.subscriptionId, event: { seller: c.seller.orgId, buyer: buyerId, occurred_at }, ...(as_of ? { as_of } : {}) }, c.billingStaff);

    before(async () => {
      svc = await startService(backend, { clock });
      c = await configuredSeller(svc);
    });
    after(async () => svc?.close());

    it('relationships.insert is idempotent per pair: the same relationship, one event; list shows each once, oldest first', async () => {
      const b1 = await buyer(svc);
      const b2 = await buyer(svc);
      const first = await relate(svc, c, b1);
      expect(first).to.include({ subscription_id: c.subscriptionId, seller: c.seller.orgId, buyer: b1, classification: 'platform_introduced', claim_status: 'none', evidence_count: 0 });
      const before = await eventCount();
      clock.advance(1000);
      const again = await relate(svc, c, b1);
      expect(again).to.deep.equal(first);
      expect(await eventCount()).to.equal(before);
      clock.advance(1000);
      const second = await relate(svc, c, b2);
      const list = await svc.call(ops['billing.configuration.relationships.list'], { subscription_id: c.subscriptionId }, c.billingStaff);
      expect(list.status).to.equal(200);
      const ids = list.body.map((r) => r.id);
      expect(ids.slice(-2)).to.deep.equal([first.id, second.id]);
      const one = await svc.call(ops['billing.configuration.relationships.list'], { subscription_id: c.subscriptionId, buyer: b2 }, c.billingStaff);
      expect(one.body).to.deep.equal([second]);
      const after = await svc.call(ops['billing.configuration.relationships.list'], { subscription_id: c.subscriptionId, starting_after: first.id, limit: 1 }, c.billingStaff);
      expect(after.body.map((r) => r.id)).to.deep.equal([second.id]);
    });

    it('a relationship of an organization with itself, a seller not the subscriber, unknown subscription or buyer: 4xx, nothing written', async () => {
      const b = await buyer(svc);
      const before = await eventCount();
      const tries: [unknown, number, string][] = [
        [{ subscription_id: c.subscriptionId, seller: c.seller.orgId, buyer: c.seller.orgId }, 400, 'invalid_relationship'],
        [{ subscription_id: c.subscriptionId, seller: b, buyer: c.seller.orgId }, 400, 'invalid_relationship'],
        [{ subscription_id: MISSING, seller: c.seller.orgId, buyer: b }, 404, 'subscription_not_found'],
        [{ subscription_id: c.subscriptionId, seller: c.seller.orgId, buyer: MISSING }, 404, 'organization_not_found'],
        [{ subscription_id: c.subscriptionId, seller: c.seller.orgId }, 400, 'invalid_request'],
      ];
      for (const [body, status, code] of tries) {
        const res = await svc.send('billing.configuration.relationships.insert', body, c.billingStaff);
        expect([res.status, res.body.code], JSON.stringify(body)).to.deep.equal([status, code]);
      }
      expect(await eventCount()).to.equal(before);
    });

    it('pricing supersedes only what it names: overlap refused, a named middle part splits the earlier revision; resolve answers per effective date', async () => {
      const b = await buyer(svc);
      await relate(svc, c, b);
      const p1 = await pricing(svc, c, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 500, pre_existing: 100 }, minimum_fee: 10, reason: 'launch' });
      expect(p1).to.include({ sequence: 1, effective_from: '2026-01-01T00:00:00.000Z', effective_to: null, reason: 'launch', recorded_at: clock.now().toISOString() });
      expect(p1.supersedes).to.deep.equal([]);
      const before = await eventCount();
      const overlap = await svc.call(ops['billing.configuration.pricing.insert'], { subscription_id: c.subscriptionId, effective_from: '2026-03-01', effective_to: '2026-04-01', currency: 'GBP', rates_bps: { platform_introduced: 700, pre_existing: 100 }, minimum_fee: 0, reason: 'spring' }, c.billingStaff);
      expect([overlap.status, overlap.body.code]).to.deep.equal([409, 'revision_overlap']);
      expect(overlap.body.message).to.contain(p1.id);
      expect(await eventCount()).to.equal(before);
      clock.advance(60_000);
      const beforeP2 = clock.now().toISOString();
      clock.advance(60_000);
      const p2 = await pricing(svc, c, { effective_from: '2026-03-01', effective_to: '2026-04-01', rates_bps: { platform_introduced: 700, pre_existing: 100 }, minimum_fee: 0, reason: 'spring', supersedes: [p1.id] });
      expect(p2.supersedes).to.deep.equal([{ revision_id: p1.id, effective_from: '2026-03-01T00:00:00.000Z', effective_to: '2026-04-01T00:00:00.000Z' }]);
      const at = async (t: string, asOf?: string) => (await resolveAt(t, b, asOf)).body.pricing?.id;
      expect(await at('2026-02-15T12:00:00Z')).to.equal(p1.id);
      expect(await at('2026-03-10T12:00:00Z')).to.equal(p2.id);
      expect(await at('2026-04-10T12:00:00Z')).to.equal(p1.id);
      expect(await at('2025-12-31T23:59:59Z')).to.equal(undefined);
      // As known before p2 was recorded, March was still p1's.
      expect(await at('2026-03-10T12:00:00Z', beforeP2)).to.equal(p1.id);
      const full = await resolveAt('2026-03-10T12:00:00+01:00', b);
      expect(full.body).to.include({ classification: 'platform_introduced', unclassifiable_reason: null, as_of: clock.now().toISOString() });
      expect(full.body.event.occurred_at).to.equal('2026-03-10T11:00:00.000Z');
      expect(full.body.pricing).to.deep.equal(p2);
    });

    it('bad revisions are 4xx and write nothing: reversed range, rate outside 0..10,000, currency not enabled, stray supersedes, unknown subscription', async () => {
      const before = await eventCount();
      const base = { subscription_id: c.subscriptionId, effective_from: '2027-01-01', currency: 'GBP', rates_bps: { platform_introduced: 500, pre_existing: 100 }, minimum_fee: 0, reason: 'x' };
      const tries: [string, unknown, number, string][] = [
        ['billing.configuration.pricing.insert', { ...base, effective_to: '2026-12-01' }, 400, 'invalid_range'],
        ['billing.configuration.pricing.insert', { ...base, effective_to: '2027-01-01' }, 400, 'invalid_range'],
        ['billing.configuration.pricing.insert', { ...base, rates_bps: { platform_introduced: 10_001, pre_existing: 0 } }, 400, 'invalid_request'],
        ['billing.configuration.pricing.insert', { ...base, rates_bps: { platform_introduced: -1, pre_existing: 0 } }, 400, 'invalid_request'],
        ['billing.configuration.pricing.insert', { ...base, currency: 'USD' }, 400, 'currency_not_enabled'],
        ['billing.configuration.pricing.insert', { ...base, currency: 'XYZ' }, 400, 'invalid_request'],
        ['billing.configuration.pricing.insert', { ...base, subscription_id: MISSING }, 404, 'subscription_not_found'],
        ['billing.configuration.pricing.insert', { ...base, effective_from: '0000-01-01T00:00:00+01:00' }, 400, 'invalid_request'],
        ['billing.configuration.baselines.insert', { subscription_id: c.subscriptionId, effective_from: '2030-01-01', monthly_exempt_amount: 5, currency: 'GBP', reason: 'x', supersedes: [MISSING] }, 400, 'invalid_supersedes'],
        ['billing.configuration.baselines.insert', { subscription_id: c.subscriptionId, effective_from: '2030-01-01', monthly_exempt_amount: -5, currency: 'GBP', reason: 'x' }, 400, 'invalid_request'],
        ['billing.configuration.baselines.insert', { subscription_id: c.subscriptionId, effective_from: '2030-01-01', monthly_exempt_amount: 5, currency: 'GBP', reason: '' }, 400, 'invalid_request'],
      ];
      for (const [op, body, status, code] of tries) {
        const res = await svc.send(op, body, c.billingStaff);
        expect([res.status, res.body.code], JSON.stringify(body)).to.deep.equal([status, code]);
      }
      expect(await eventCount()).to.equal(before);
    });

    it('a pending claim makes resolve unclassifiable and preview fail closed naming the sample; a rejection makes it platform_introduced again', async () => {
      const b = await buyer(svc);
      const ok = await buyer(svc);
      const rel = await relate(svc, c, b);
      const claimed = await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: 'claim_pre_existing', reason: 'Supplied them since 2019' }, c.billingStaff);
      expect(claimed.status).to.equal(200);
      expect(claimed.body).to.include({ claim_status: 'claimed', classification: null });
      expect(claimed.body.claims).to.deep.equal([{ status: 'claimed', actor: claimed.body.claims[0]?.actor, reason: 'Supplied them since 2019', recorded_at: clock.now().toISOString() }]);
      const r = await resolveAt('2026-02-01T00:00:00Z', b);
      expect(r.body).to.include({ classification: null, unclassifiable_reason: 'claim_pending' });
      const before = await eventCount();
      const preview = await svc.call(ops['billing.configuration.preview.get'], {
        subscription_id: c.subscriptionId,
        samples: [
          { order_id: 'ok-1', seller: c.seller.orgId, buyer: ok, amount: 10_000, occurred_at: '2026-02-01T10:00:00Z' },
          { order_id: 'claimed-1', seller: c.seller.orgId, buyer: b, amount: 10_000, occurred_at: '2026-02-01T11:00:00Z' },
          { order_id: 'too-early', seller: c.seller.orgId, buyer: ok, amount: 10_000, occurred_at: '2025-06-01T11:00:00Z' },
        ],
      }, c.billingStaff);
      expect([preview.status, preview.body.code]).to.deep.equal([409, 'usage_unrateable']);
      const issues = preview.body.issues ?? [];
      expect(issues.map((i) => i.path)).to.deep.equal(['samples.1', 'samples.2']);
      expect(issues[0]?.message).to.match(/^claimed-1: claim_pending/);
      expect(issues[1]?.message).to.match(/^too-early: no_pricing/);
      expect(await eventCount()).to.equal(before);
      const accept = await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: 'accept_claim', reason: 'looks right' }, c.billingStaff);
      expect([accept.status, accept.body.code]).to.deep.equal([409, 'evidence_required']);
      const reject = await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: 'reject_claim', reason: 'No contract before 2026' }, c.billingStaff);
      expect(reject.body).to.include({ claim_status: 'rejected', classification: 'platform_introduced' });
      const again = await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: 'reject_claim', reason: 'twice' }, c.billingStaff);
      expect([again.status, again.body.code]).to.deep.equal([409, 'invalid_claim_transition']);
      const missing = await svc.call(ops['billing.configuration.relationships.update'], { id: MISSING, action: 'claim_pre_existing', reason: 'x' }, c.billingStaff);
      expect([missing.status, missing.body.code]).to.deep.equal([404, 'relationship_not_found']);
    });

    it('preview rates samples with the pricing in force, half-even per order, with minimum fee; writes nothing', async () => {
      const b = await buyer(svc);
      const before = await eventCount();
      // Pricing in force from January: p1 (500 bps, minimum 10); March is p2 (700 bps, no minimum).
      const res = await svc.call(ops['billing.configuration.preview.get'], {
        subscription_id: c.subscriptionId,
        samples: [
          { seller: c.seller.orgId, buyer: b, amount: 10_050, occurred_at: '2026-02-01T10:00:00Z' }, // 502.5 -> 502
          { seller: c.seller.orgId, buyer: b, amount: 10_150, occurred_at: '2026-02-01T10:00:00Z' }, // 507.5 -> 508
          { seller: c.seller.orgId, buyer: b, amount: 100, occurred_at: '2026-02-02T10:00:00Z' }, // 5 -> minimum 10
          { seller: c.seller.orgId, buyer: b, amount: 1_000, occurred_at: '2026-03-02T10:00:00Z' }, // 70
          { seller: c.seller.orgId, buyer: b, amount: 0, occurred_at: '2026-02-02T10:00:00Z' }, // nothing charged
        ],
      }, c.billingStaff);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.items.map((i) => [i.order_id, i.classification, i.rate_bps, i.fee])).to.deep.equal([
        ['sample-0', 'platform_introduced', 500, 502],
        ['sample-1', 'platform_introduced', 500, 508],
        ['sample-2', 'platform_introduced', 500, 10],
        ['sample-3', 'platform_introduced', 700, 70],
        ['sample-4', 'platform_introduced', 500, 0],
      ]);
      expect(res.body.totals).to.deep.equal([{ currency: 'GBP', amount: 21_300, fee: 1090 }]);
      expect(await eventCount()).to.equal(before);
    });

    it('history: newest first, bounded with a cursor, who/when/why/what it superseded, and as of an earlier instant', async () => {
      clock.advance(1000);
      const b0 = await baseline(svc, c, { effective_from: '2026-01-01', monthly_exempt_amount: 50_000, reason: 'first baseline' });
      clock.advance(1000);
      const mid = clock.now().toISOString();
      clock.advance(1000);
      const b1 = await baseline(svc, c, { effective_from: '2026-06-01', monthly_exempt_amount: 80_000, reason: 'grew', supersedes: [b0.id] });
      const all = [];
      let cursor: string | undefined;
      do {
        const page = await svc.call(ops['billing.configuration.history.get'], { subscription_id: c.subscriptionId, limit: 2, ...(cursor ? { cursor } : {}) }, c.billingStaff);
        expect(page.status).to.equal(200);
        expect(page.body.items.length).to.be.at.most(2);
        all.push(...page.body.items);
        cursor = page.body.pagination?.cursor;
      } while (cursor);
      const times = all.map((e) => e.recorded_at);
      expect([...times].sort().reverse()).to.deep.equal(times);
      expect(new Set(all.map((e) => e.id)).size).to.equal(all.length);
      expect(all[0]).to.include({ kind: 'baseline', reason: 'grew' });
      expect(all[0]?.baseline).to.deep.equal(b1);
      expect(all[0]?.supersedes).to.deep.equal([{ revision_id: b0.id, effective_from: '2026-06-01T00:00:00.000Z', effective_to: null }]);
      expect(all.map((e) => e.kind)).to.include.members(['pricing', 'relationship_claim', 'relationship_decision']);
      const then = await svc.call(ops['billing.configuration.history.get'], { subscription_id: c.subscriptionId, as_of: mid }, c.billingStaff);
      expect(then.body.items[0]?.baseline?.id).to.equal(b0.id);
      expect(then.body.items.some((e) => e.baseline?.id === b1.id)).to.equal(false);
      const tooMany = await svc.send('billing.configuration.history.get', { subscription_id: c.subscriptionId, limit: 101 }, c.billingStaff);
      expect([tooMany.status, tooMany.body.code]).to.deep.equal([400, 'invalid_request']);
      const future = await svc.send('billing.configuration.history.get', { subscription_id: c.subscriptionId, as_of: '2099-01-01T00:00:00Z' }, c.billingStaff);
      expect([future.status, future.body.code]).to.deep.equal([400, 'invalid_as_of']);
      const badCursor = await svc.send('billing.configuration.history.get', { subscription_id: c.subscriptionId, cursor: 'nope' }, c.billingStaff);
      expect([badCursor.status, badCursor.body.code]).to.deep.equal([400, 'invalid_cursor']);
    });

    it('every configuration operation is billing staff only: the seller\'s own users and other organizations get 403 and nothing is written', async () => {
      const outsider = (await svc.signUp({ kind: 'repairer', role: 'admin' })).token;
      const before = await eventCount();
      const b = await buyer(svc);
      const bodies: Record<string, unknown> = {
        'billing.configuration.relationships.insert': { subscription_id: c.subscriptionId, seller: c.seller.orgId, buyer: b },
        'billing.configuration.relationships.list': { subscription_id: c.subscriptionId },
        'billing.configuration.relationships.update': { id: MISSING, action: 'claim_pre_existing', reason: 'x' },
        'billing.configuration.baselines.insert': { subscription_id: c.subscriptionId, effective_from: '2031-01-01', monthly_exempt_amount: 1, currency: 'GBP', reason: 'x' },
        'billing.configuration.pricing.insert': { subscription_id: c.subscriptionId, effective_from: '2031-01-01', currency: 'GBP', rates_bps: { platform_introduced: 1, pre_existing: 1 }, minimum_fee: 0, reason: 'x' },
        'billing.configuration.history.get': { subscription_id: c.subscriptionId },
        'billing.configuration.resolve.get': { subscription_id: c.subscriptionId, event: { seller: c.seller.orgId, buyer: b, occurred_at: '2026-02-01T00:00:00Z' } },
        'billing.configuration.preview.get': { subscription_id: c.subscriptionId, samples: [{ seller: c.seller.orgId, buyer: b, amount: 1, occurred_at: '2026-02-01T00:00:00Z' }] },
      };
      const countAfterBuyer = await eventCount();
      for (const [op, body] of Object.entries(bodies)) {
        for (const token of [c.seller.token, outsider]) {
          const res = await svc.send(op, body, token);
          expect([res.status, res.body.code], op).to.deep.equal([403, 'forbidden']);
        }
        expect((await svc.send(op, body, null)).status, op).to.equal(401);
      }
      expect(await eventCount()).to.equal(countAfterBuyer);
      expect(countAfterBuyer).to.be.greaterThan(before);
    });
  });
}
