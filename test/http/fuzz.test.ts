// Fuzzing every operation of both API surfaces (generated from the registry): malformed and hostile values
// in every field never give a 5xx, every 4xx has the error body, and a 4xx appends no event. Then every date, month,
// instant, number and cursor field of every operation gets each extreme value (years 0 and 10000, offsets crossing the
// edges, 2^31, 2^53, 1e308, -0, 1e999, forged cursors) in an otherwise ordinary body: again never a 5xx.
import { expect } from 'chai';
import fc from 'fast-check';
import { backends } from '../support/db.ts';
import { type RawReply, startService, type TestService } from '../support/app.ts';
import { billedOrg, billingStaff, openInvoice, paymentBody } from '../support/billing.ts';
import { installIntegration, integrationHeaders } from '../support/integrations.ts';
import { EXTREMES, extremeTargets, plausibleBodies, requestBodies, toJson, withValueAt } from '../support/fuzz.ts';
import { sellerWithSubscription } from '../support/usage.ts';
import { createSession } from '../../src/commands/identity/identity.ts';
import type { Operation } from '../../src/contract/operation.ts';
import { ops } from '../support/ops.ts';

/** Cases per operation; the seed makes a failure reproducible. */
const CASES = Number(process.env.FUZZ_CASES ?? 30);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);

for (const backend of backends()) {
  describe(`fuzzing every operation (${backend})`, function () {
    this.timeout(600_000);
    let svc: TestService;
    let staffUser: { userId: string; orgId: string };
    let owner: { token: string; orgId: string; siteId: string };
    let integration: { apiKey: string; integrationId: string };
    let ids: string[];
    let registered: Operation[];
    /** Bodies known to reach the handler, per operation: the extreme values go into these first. */
    let examples: Record<string, unknown[]>;
    const events = async () => Number((await svc.app.knex('es_events').count({ n: '*' }))[0]?.n ?? 0);

    // POSTs the body as JSON text (RawNumber values written as given) as platform staff, or through the integration.
    async function send(op: Operation, body: unknown): Promise<RawReply> {
      const headers: Record<string, string> = op.surface === 'core'
        // A fresh session each time: auth.sessions.remove may end it.
        ? { authorization: `Bearer ${(await createSession(svc.app.knex, { userId: staffUser.userId, organizationId: staffUser.orgId, now: svc.clock.now(), ttlHours: 1 })).token}` }
        : integrationHeaders(integration);
      const text = toJson(body);
      const res = await fetch(`${svc.url}${op.surface === 'core' ? '/api/v1/' : '/api/2026-01/'}${op.id}`, { method: 'POST', headers: { ...headers, ...(text === undefined ? {} : { 'content-type': 'application/json' }) }, body: text });
      if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
        await res.body?.cancel();
        return { status: res.status, headers: res.headers, body: {} };
      }
      const raw = await res.text();
      let parsed: RawReply['body'] = {};
      try {
        parsed = raw ? (JSON.parse(raw) as RawReply['body']) : {};
      } catch {
        // not JSON: the checks below say so
      }
      return { status: res.status, headers: res.headers, body: parsed };
    }

    // Sends one body; returns its status and adds what is wrong with the answer to `failures`.
    async function probe(op: Operation, body: unknown, failures: string[]): Promise<number> {
      const before = await events();
      const res = await send(op, body);
      const what = `${op.id} <- ${toJson(body)?.slice(0, 200)} -> ${res.status} ${JSON.stringify(res.body)?.slice(0, 200)}`;
      if (res.status !== 200 && !(res.status >= 400 && res.status < 500)) failures.push(what);
      else if (res.status !== 200) {
        if (typeof res.body?.code !== 'string' || typeof res.body?.type !== 'string' || res.body?.request_id !== res.headers.get('x-request-id')) failures.push(`no error body: ${what}`);
        if ((await events()) !== before) failures.push(`4xx appended events: ${what}`);
      }
      // An uninstall by the fuzzer: install again so the rest of the run has a key.
      if (op.id === 'integrations.remove' && res.status === 200) integration = await installIntegration(svc, { token: owner.token, scopes: ['repairer', 'supplier'] });
      return res.status;
    }

    function report(title: string, table: Record<string, Record<number, number>>): void {
      const statuses = [...new Set(Object.values(table).flatMap((c) => Object.keys(c)))].sort();
      console.log(`      ${title} (${backend}, seed ${SEED}):`);
      console.log(`      ${'operation'.padEnd(40)} ${statuses.map((s) => s.padStart(5)).join('')}`);
      for (const [id, c] of Object.entries(table)) console.log(`      ${id.padEnd(40)} ${statuses.map((s) => String(c[Number(s)] ?? '').padStart(5)).join('')}`);
    }

    before(async () => {
      svc = await startService(backend);
      staffUser = await svc.signUp({ kind: 'platform', role: 'owner', staff: ['billing_staff', 'platform_staff'] });
      const staff = await billingStaff(svc);
      const acme = await billedOrg(svc);
      const inv = await openInvoice(svc, staff, acme.customerId, [5000]);
      const pay = await svc.call(ops['billing.payments.insert'], paymentBody(inv.id, 100), staff);
      const note = await svc.call(ops['billing.notes.insert'], { subject: { type: 'customer', id: acme.customerId }, body: 'n' }, acme.token);
      // A seller with a subscription, so usage, generate and configuration requests reach their handlers.
      const seller = await sellerWithSubscription(svc);
      const sub = seller.subscriptionId;
      const order = { seller: seller.orgId, buyer: acme.orgId, occurred_at: '2026-02-01T00:00:00Z' };
      examples = {
        'billing.usage.insert': [{ orders: [{ ...order, order_id: 'FUZZ-1', amount: { amount: 100, currency: 'GBP' } }] }],
        'billing.currency-exchange-rates.insert': [{ base: 'EUR', target: 'GBP', rate: '0.85', as_of: '2026-01-01T00:00:00Z', source: 'fuzz' }],
        'billing.currency-exchange-rates.list': [{ target: 'GBP' }],
        'billing.invoices.list': [{}],
        'billing.events.list': [{}],
        'analytics.counts.list': [{ from: '2026-01-01', to: '2026-01-31' }],
        'analytics.events.insert': [{ name: 'page_view' }],
        'billing.history.get': [{ subject: { type: 'invoice', id: inv.id } }],
        'billing.configuration.history.get': [{ subscription_id: sub }],
        'billing.configuration.pricing.insert': [{ subscription_id: sub, effective_from: '2026-01-01', currency: 'GBP', rates_bps: { platform_introduced: 250, pre_existing: 100 }, minimum_fee: 0, reason: 'fuzz' }],
        'billing.configuration.baselines.insert': [{ subscription_id: sub, effective_from: '2026-01-01', monthly_exempt_amount: 1000, currency: 'GBP', reason: 'fuzz' }],
        'billing.configuration.resolve.get': [{ subscription_id: sub, event: order }],
        'billing.configuration.preview.get': [{ subscription_id: sub, samples: [{ ...order, amount: 100 }] }],
        'billing.payments.insert': [paymentBody(inv.id, 1)],
        'billing.payments.update': [{ id: pay.body.payment.id, reference: 'fuzz', reason: 'fuzz' }],
        'billing.customers.statement.get': [{ customer_id: acme.customerId, from: '2026-01-01', to: '2026-03-31' }],
        'billing.subscriptions.update': [{ id: sub, current_period_end: '2027-02-01T00:00:00Z' }],
        'billing.entitlement-overrides.insert': [{ organization_id: acme.orgId, entitlement_key: 'fuzz.key', mode: 'grant', reason: 'fuzz' }],
        'billing.invoices.generate': [{ subscription_id: sub, period: '2026-01' }],
        'billing.invoices.orders.list': [{ invoice_id: inv.id }],
        'billing.notes.list': [{ subject: { type: 'customer', id: acme.customerId } }],
        'billing.customers.attachments.list': [{ customer_id: acme.customerId }],
        'billing.invoices.attachments.list': [{ invoice_id: inv.id }],
      };
      owner = await svc.signUp();
      integration = await installIntegration(svc, { token: owner.token, scopes: ['repairer', 'supplier'] });
      ids = [acme.customerId, inv.id, pay.body.payment.id, String(note.body.id), acme.orgId, owner.siteId, integration.integrationId, seller.subscriptionId, seller.orgId];
      registered = [...svc.app.registry.list('core'), ...svc.app.registry.list('integrations')];
      expect(registered.length).to.be.greaterThan(30);
    });
    after(async () => svc?.close());

    it(`answers ${CASES} generated bodies per operation with a 200 or a 4xx error body, never a 5xx; a 4xx appends nothing`, async () => {
      const table: Record<string, Record<number, number>> = {};
      const failures: string[] = [];
      for (const [i, op] of registered.entries()) {
        const counts: Record<number, number> = {};
        for (const body of fc.sample(requestBodies(op.request, ids), { seed: SEED + i, numRuns: CASES })) {
          const status = await probe(op, body, failures);
          counts[status] = (counts[status] ?? 0) + 1;
        }
        table[op.id] = counts;
      }
      report(`fuzz, ${CASES} cases per operation`, table);
      expect(failures, failures.slice(0, 10).join('\n')).to.deep.equal([]);
    });

    it('answers every extreme date, month, instant, number and forged cursor in every such field with a 200 or a 4xx, never a 5xx; a 4xx appends nothing', async () => {
      const table: Record<string, Record<number, number>> = {};
      const failures: string[] = [];
      let sent = 0;
      for (const [i, op] of registered.entries()) {
        if (!op.request) continue;
        const targets = extremeTargets(op.request);
        if (!targets.length) continue;
        // Ordinary bodies around the extreme value, valid but for it where possible: the known ones; else generated ones
        // (with every optional field, and as generated) that the schema accepts; else generated ones.
        const request = op.request;
        const generated = [true, false].map((full) => fc.sample(plausibleBodies(request, ids, full), { seed: SEED + i, numRuns: 30 }));
        const valid = generated.map((bodies) => bodies.find((b) => request.safeParse(b).success)).filter((b) => b !== undefined);
        const bases = examples[op.id] ?? (valid.length ? valid : generated.map((bodies) => bodies[0]));
        const counts: Record<number, number> = {};
        for (const [t, { path, kind }] of targets.entries()) {
          for (const [v, value] of EXTREMES[kind].entries()) {
            const status = await probe(op, withValueAt(bases[(t + v) % bases.length], path, value), failures);
            counts[status] = (counts[status] ?? 0) + 1;
            sent++;
          }
        }
        table[op.id] = counts;
      }
      report('extreme values in every date, month, instant, number and cursor field', table);
      expect(sent).to.be.greaterThan(500);
      expect(failures, failures.slice(0, 10).join('\n')).to.deep.equal([]);
    });
  });
}
