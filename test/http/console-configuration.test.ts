// The console's configuration page over HTTP: relationships with claims and decisions (a reason each), revisions on the
// timeline, a new revision from the form, resolve and preview answers, and the relationship's history; a usage invoice's
// orders (paged) and its re-rating diff after a back-dated price.
import { expect } from 'chai';
import { TestClock } from '../../src/clock.ts';
import { backends } from '../support/db.ts';
import { startService, type TestService } from '../support/app.ts';
import { WebClient, hiddenFields, logIn, unescapeHtml } from '../support/web.ts';
import { type ConfiguredSeller, buyer, configuredSeller, pricing, relate, subscribe } from '../support/configuration.ts';
import { signUpLong } from '../support/long-session.ts';
import { order } from '../support/usage.ts';
import { ops } from '../support/ops.ts';
import { money } from '../../src/http/pages/console/layout.ts';

// The cells of a captioned table on a page, as text (tags dropped, entities read back).
function cells(html: string, caption: string): string[][] {
  const at = html.indexOf(`<caption>${caption}</caption>`);
  if (at < 0) return [];
  const body = html.slice(html.indexOf('<tbody>', at), html.indexOf('</tbody>', at));
  return [...body.matchAll(/<tr>(.*?)<\/tr>/gs)].map((r) => [...(r[1] ?? '').matchAll(/<td>(.*?)<\/td>/gs)].map((c) => unescapeHtml((c[1] ?? '').replace(/<[^>]+>/g, '')).trim()));
}

for (const backend of backends()) {
  describe(`billing console: configuration (${backend})`, () => {
    let svc: TestService;
    let web: WebClient;
    let c: ConfiguredSeller;
    before(async () => {
      // A fixed day after the October used below (the subscriptions run through 2026).
      svc = await startService(backend, { clock: new TestClock('2026-11-02T09:00:00.000Z') });
      c = await configuredSeller(svc);
      const clerk = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
      web = new WebClient(svc.url);
      await logIn(web, clerk.email, 'correct horse battery');
    });
    after(async () => svc?.close());

    it('shows relationships and the revision timeline, records a decision and a baseline with their reasons, and answers resolve and preview', async () => {
      const buyerId = await buyer(svc);
      const rel = await relate(svc, c, buyerId);
      const claimed = await svc.call(ops['billing.configuration.relationships.update'], { id: rel.id, action: 'claim_pre_existing', reason: 'Trading since 2019' }, c.billingStaff);
      expect(claimed.status, JSON.stringify(claimed.body)).to.equal(200);
      await pricing(svc, c);
      const url = `/console/configuration?subscription_id=${c.subscriptionId}`;
      const page = await web.get(url);
      expect(page.status).to.equal(200);
      // The buyer by its organization's name, not its id.
      const buyerName = (await svc.call(ops['billing.names.list'], { organizations: [buyerId] }, c.billingStaff)).body.organizations[0]?.name ?? 'missing';
      expect(page.html).to.contain(buyerName).and.to.contain('Trading since 2019').and.to.contain('launch pricing');

      // Accepting needs committed evidence: the API's refusal is shown; rejecting with a reason is recorded.
      const accept = `/console/configuration/${c.subscriptionId}/relationships/${rel.id}/accept_claim`;
      const refused = await web.post(accept, { ...hiddenFields(page.html, accept), reason: 'Looks right' });
      expect(refused.status).to.equal(409);
      expect(refused.html).to.contain('evidence_required');
      const reject = `/console/configuration/${c.subscriptionId}/relationships/${rel.id}/reject_claim`;
      const fresh = await web.get(url);
      expect((await web.post(reject, { ...hiddenFields(fresh.html, reject), reason: ' ' })).status).to.equal(400);
      const rejected = await web.post(reject, { ...hiddenFields(fresh.html, reject), reason: 'No contract on file' });
      expect(rejected.status).to.equal(303);
      const list = await svc.call(ops['billing.configuration.relationships.list'], { subscription_id: c.subscriptionId }, c.billingStaff);
      expect(list.body[0]?.claim_status).to.equal('rejected');
      const h = await svc.call(ops['billing.history.get'], { subject: { type: 'relationship', id: rel.id } }, c.billingStaff);
      expect(h.body.items.map((e) => e.type)).to.deep.equal(['RelationshipRegistered', 'RelationshipClaimed', 'RelationshipClaimDecided']);
      expect(h.body.items[2]?.reason).to.equal('No contract on file');

      // A baseline from the form lands on the timeline with its reason.
      const base = `/console/configuration/${c.subscriptionId}/baselines`;
      const page2 = await web.get(url);
      const saved = await web.post(base, { ...hiddenFields(page2.html, base), effective_from: '2026-02-01', effective_to: '', currency: 'GBP', monthly_exempt_amount: '500.00', supersedes: '', reason: 'Agreed in the Q1 review' });
      expect(saved.status, saved.html.slice(0, 500)).to.equal(303);
      const page3 = await web.get(url);
      expect(page3.html).to.contain('Agreed in the Q1 review').and.to.contain('GBP 500.00 a month');
      const revisions = await svc.call(ops['billing.configuration.history.get'], { subscription_id: c.subscriptionId }, c.billingStaff);
      const revisionId = revisions.body.items.find((e) => e.kind === 'baseline')?.baseline?.id ?? '';
      const rh = await svc.call(ops['billing.history.get'], { subject: { type: 'revision', id: revisionId } }, c.billingStaff);
      expect(rh.body.items.map((e) => [e.type, e.reason])).to.deep.equal([['BaselineRevisionRecorded', 'Agreed in the Q1 review']]);
      expect(rh.body.state).to.include({ kind: 'baseline', revision_id: revisionId });

      // Resolve and preview answer on the page; preview writes nothing.
      const resolve = `/console/configuration/${c.subscriptionId}/resolve`;
      const resolved = await web.post(resolve, { ...hiddenFields(page3.html, resolve), seller: c.seller.orgId, buyer: buyerId, occurred_at: '2026-03-01T10:00', as_of: '' });
      expect(resolved.status).to.equal(200);
      expect(resolved.html).to.contain('platform introduced');
      const preview = `/console/configuration/${c.subscriptionId}/preview`;
      const previewed = await web.post(preview, { ...hiddenFields(page3.html, preview), samples: `${c.seller.orgId}, ${buyerId}, 100.00, 2026-03-01T10:00`, currency: 'GBP', as_of: '' });
      expect(previewed.status).to.equal(200);
      expect(previewed.html).to.contain('Preview (nothing was recorded)').and.to.contain('GBP 5.00');
    });

    it('shows the orders behind each metered line page by page, and a re-rate preview whose figures are the API\'s and which writes nothing', async () => {
      // A seller of its own: two pricing revisions in October make two metered lines; 52 orders on the first (two pages), 3 on the second.
      const owner = await signUpLong(svc, { kind: 'supplier' });
      const s: ConfiguredSeller = { ...c, seller: { orgId: owner.orgId, token: owner.token }, subscriptionId: await subscribe(svc, c.platformStaff, owner.orgId) };
      expect((await svc.call(ops['billing.customers.insert'], { name: 'Usage Seller Ltd', email: 'ap@usage.example', currency: 'GBP' }, owner.token)).status).to.equal(200);
      const early = await pricing(svc, s, { effective_from: '2026-01-01', rates_bps: { platform_introduced: 500, pre_existing: 200 } });
      const late = await pricing(svc, s, { effective_from: '2026-10-20', rates_bps: { platform_introduced: 400, pre_existing: 200 }, supersedes: [early.id] });
      const buyerId = await buyer(svc);
      const id = (k: number) => `O-${String(k).padStart(2, '0')}<i>&"`;
      const orders = [
        ...Array.from({ length: 52 }, (_, k) => order(id(k), owner.orgId, buyerId, 1000 + k * 37, new Date(Date.UTC(2026, 9, 1) + k * 8 * 3_600_000).toISOString())),
        ...[21, 25, 30].map((d, k) => order(id(52 + k), owner.orgId, buyerId, 2000 + k * 501, `2026-10-${d}T10:00:00Z`)),
      ];
      expect((await svc.call(ops['billing.usage.insert'], { orders }, c.billingStaff)).status).to.equal(200);
      const gen = await svc.call(ops['billing.invoices.generate'], { subscription_id: s.subscriptionId, period: '2026-10' }, c.billingStaff);
      expect(gen.status, JSON.stringify(gen.body)).to.equal(200);
      const inv = gen.body;
      expect(inv.lines.map((l) => l.metered?.order_count)).to.deep.equal([52, 3]);

      // The invoice page: each metered line with its orders; order ids are shown as text, never as markup.
      const url = `/console/invoices/${inv.id}`;
      const page = await web.get(url);
      expect(page.status).to.equal(200);
      expect(page.html).to.contain('Metered usage').and.to.contain('Re-rate preview').and.not.to.contain('<i>&');
      const first = cells(page.html, 'Orders behind line 1');
      expect(first.map((r) => r[0])).to.deep.equal(Array.from({ length: 50 }, (_, k) => id(k)));
      const listed = await svc.call(ops['billing.invoices.orders.list'], { invoice_id: inv.id, line_index: 0, limit: 50 }, c.billingStaff);
      expect(first.map((r) => [r[0], r[3], r[8]])).to.deep.equal(listed.body.items.map((o) => [o.order_id, money(o.amount.amount, 'GBP'), money(o.fee.amount, 'GBP')]));
      expect(first[0]?.[8]).to.equal('GBP 0.50'); // 5% of GBP 10.00, by hand
      expect(cells(page.html, 'Orders behind line 2').map((r) => r[0])).to.deep.equal([id(52), id(53), id(54)]);
      // The next page of line 1 through the API's cursor; line 2 stays on its first page.
      const next = /<a href="([^"]+)">Next orders of line 1<\/a>/.exec(page.html)?.[1];
      expect(next, 'a next-page link').to.be.a('string');
      const page2 = await web.get(unescapeHtml(next ?? ''));
      expect(page2.status).to.equal(200);
      expect(cells(page2.html, 'Orders behind line 1').map((r) => r[0])).to.deep.equal([id(50), id(51)]);
      expect(page2.html).to.contain('First orders of line 1').and.not.to.contain('Next orders of line 1');
      expect(cells(page2.html, 'Orders behind line 2')).to.have.length(3);
      // A cursor that is not one: the API's refusal on that line, the rest of the page as usual.
      const badCursor = await web.get(`${url}?line=0&cursor=nope`);
      expect(badCursor.status).to.equal(200);
      expect(badCursor.html).to.contain('invalid_cursor');
      expect(cells(badCursor.html, 'Orders behind line 2')).to.have.length(3);

      // A price back-dated to 10 October (6%) replaces both: the preview shows the API's diff, and nothing is written.
      const backdated = await pricing(svc, s, { effective_from: '2026-10-10', rates_bps: { platform_introduced: 600, pre_existing: 200 }, supersedes: [early.id, late.id], reason: 'Rate agreed late' });
      const events = async () => Number((await svc.app.knex('es_events').count({ n: '*' }).first())?.n);
      const before = await events();
      const shown = await web.get(`${url}/rerate`);
      expect(shown.status).to.equal(200);
      expect(await events()).to.equal(before);
      const diff = (await svc.call(ops['billing.invoices.rerate.preview'], { invoice_id: inv.id }, c.billingStaff)).body;
      expect(diff.difference).to.be.greaterThan(0);
      expect(diff.changed_order_count).to.equal(25 + 3); // orders from 10 October on: k = 27..51 and the three late ones
      expect(shown.html).to.contain('Re-rate preview (nothing was written)');
      const figures = /<section class="card" aria-labelledby="rerate"[\s\S]*?<\/dl>/.exec(shown.html)?.[0] ?? '';
      expect(unescapeHtml(figures.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ')).to.contain(`As invoiced ${money(diff.old_total, 'GBP')} Rated now ${money(diff.new_total, 'GBP')} Difference +${money(diff.difference, 'GBP')} Orders that differ 28`);
      expect(cells(shown.html, 'Re-rated lines')).to.deep.equal(diff.lines.map((l) => [String(l.line_index + 1), l.description, money(l.old_amount, 'GBP'), money(l.new_amount, 'GBP'), `+${money(l.difference, 'GBP')}`]));
      const rows = cells(shown.html, 'Orders that differ');
      expect(rows.map((r) => r.slice(0, 5))).to.deep.equal(diff.orders.map((o) => [o.order_id, String(o.line_index + 1), money(o.old.fee, 'GBP'), money(o.new.fee, 'GBP'), `+${money(o.difference, 'GBP')}`]));
      expect(rows[0]?.[0]).to.equal(id(27));
      expect(rows[0]?.[5]).to.contain('rate bps: 500 bps → 600 bps').and.to.contain(`pricing revision id: ${early.id} → ${backdated.id}`);
      expect(rows.at(-1)?.[5]).to.contain('rate bps: 400 bps → 600 bps').and.to.contain(`${late.id} → ${backdated.id}`);
      expect((await svc.call(ops['billing.invoices.get'], inv.id, c.billingStaff)).body.total).to.equal(inv.total);
      // The back-dated revision's link leads to its history: who recorded it and why.
      expect(shown.html).to.contain(`/console/history?type=revision&amp;id=${backdated.id}`);
      // Its draft's memo can change from the page; its usage lines cannot be replaced by hand (the form sends no lines).
      const memoForm = hiddenFields(shown.html, `/console/invoices/${inv.id}/lines`);
      expect(shown.html).not.to.contain('line0_description');
      const saved = await web.post(`/console/invoices/${inv.id}/lines`, { ...memoForm, memo: 'October fees', line0_description: 'Hand made', line0_unit_amount: '1.00' });
      expect(saved.status, saved.html.slice(0, 300)).to.equal(303);
      const after = (await svc.call(ops['billing.invoices.get'], inv.id, c.billingStaff)).body;
      expect([after.memo, after.lines]).to.deep.equal(['October fees', inv.lines]);
      // A manual invoice has no usage: the API's refusal is shown, not a crash.
      const manual = await svc.call(ops['billing.invoices.insert'], { customer_id: inv.customer_id, lines: [{ description: 'Setup', unit_amount: 100 }] }, c.billingStaff);
      const refused = await web.get(`/console/invoices/${manual.body.id}/rerate`);
      expect(refused.status).to.equal(409);
      expect(refused.html).to.contain('invoice_not_metered').and.not.to.contain('Metered usage');
    });
  });
}
