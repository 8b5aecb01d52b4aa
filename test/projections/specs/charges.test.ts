// billing.charges given invoice, collection, payment attempt and charge events: each charge folds every record of it in any order.
import { backends } from '../../support/db.ts';
import type { InvoiceEvent } from '../../../src/domain/billing/invoice.ts';
import type { CollectionEvent } from '../../../src/domain/billing/collection.ts';
import type { PaymentAttemptEvent } from '../../../src/domain/billing/payment-attempt.ts';
import type { ChargeEvent } from '../../../src/domain/billing/charge.ts';
import { billingChargesProjection } from '../../../src/projections/billing/charges.ts';
import { on, projectionSpec, SPEC_START } from '../spec.ts';
import { CUS, INV, NUMBER, ORG } from './fixtures.ts';

const ATTEMPT = '0190c6a2-0000-7000-8000-000000000a01';
const T0 = '2026-01-15T09:00:00.000Z';
const at = (n: number) => new Date(Date.parse(SPEC_START) + (n - 1) * 1000).toISOString();
const ref = { invoice_id: INV, organization_id: ORG, customer_id: CUS, currency: 'GBP' };
const finalized: InvoiceEvent = { type: 'InvoiceFinalized', data: { ...ref, number: NUMBER, issue_date: '2026-01-15', due_date: '2026-02-14', payment_terms_days: 30, subtotal: 5000, total: 5000, finalized_at: T0 } };
const ended = (charge_ref: string, charged: number, applied: number): InvoiceEvent => ({
  type: 'ChargeAttemptEnded', data: { ...ref, attempt_id: ATTEMPT, outcome: 'succeeded', charge_ref, charged, applied, code: null, ended_at: T0 },
});
const row = (charge_ref: string, over: Record<string, unknown>) => ({
  charge_ref, provider: null, organization_id: ORG, customer_id: CUS, invoice_id: INV, invoice_number: NUMBER, currency: 'GBP', since: null,
  charged: 5000, applied: 0, recorded: true, found: false, pending: null, resolved: null, last_failure: null, ...over,
});
const invoiceSource = { organization_id: ORG, customer_id: CUS, currency: 'GBP', number: NUMBER };

for (const backend of backends()) {
  describe(`billing charges projection specs (${backend})`, function () {
    this.timeout(60_000);
    const spec = projectionSpec(backend);

    it('billing.charges: a charge applied in part is due back since its record; one applied in full is settled; collection\'s record of the same charge changes nothing', async () => {
      await spec.given(billingChargesProjection, [
        ...on<InvoiceEvent>(`invoice-${INV}`, [finalized, ended('ch_a', 5000, 3200), ended('ch_b', 5000, 5000)], { orgId: ORG }),
        ...on<CollectionEvent>(`collection-${INV}`, [{ type: 'ChargeSucceeded', data: { invoice_id: INV, attempt: 1, payment_method_id: 'pm', charge_ref: 'ch_a', amount: 5000, applied: 3200, at: T0 } }], { orgId: ORG }),
      ]).then({
        billing_charges: [row('ch_a', { applied: 3200, since: at(2) }), row('ch_b', { applied: 5000 })],
        billing_charge_sources: [{ ...invoiceSource }],
      });
    });

    it('billing.charges: found by reconciliation first, then applied in full by its holder: settled; a page attempt charged after the invoice was paid is due in full, then refunded', async () => {
      const found: ChargeEvent = { type: 'ProviderChargeFound', data: { charge_ref: 'ch_c', provider: 'sandbox', amount: 5000, currency: 'GBP', ...{ organization_id: ORG, customer_id: CUS, invoice_id: INV }, charged_at: T0, found_at: T0 } };
      const startedAttempt: PaymentAttemptEvent = {
        type: 'PaymentAttemptStarted', data: { attempt_id: ATTEMPT, invoice_id: INV, customer_id: CUS, organization_id: ORG, amount: 990, currency: 'GBP', payment_method_id: null, method_type: 'card', started_at: T0 },
      };
      const succeeded: PaymentAttemptEvent = { type: 'PaymentAttemptSucceeded', data: { provider_ref: 'pi_1', charge_ref: 'ch_d', payment_id: 'pay', applied: false, notification_id: null, at: T0 } };
      const resolution = { charge_ref: 'ch_d', resolution_id: 'r1' };
      await spec.given(billingChargesProjection, [
        ...on<InvoiceEvent>(`invoice-${INV}`, [finalized], { orgId: ORG }),
        ...on<ChargeEvent>('charge-ch_c', [found], { orgId: ORG }),
        ...on<InvoiceEvent>(`invoice-${INV}`, [ended('ch_c', 5000, 5000)], { orgId: ORG }),
        ...on<PaymentAttemptEvent>(`paymentattempt-${ATTEMPT}`, [startedAttempt, succeeded], { orgId: ORG }),
        ...on<ChargeEvent>('charge-ch_d', [
          { type: 'ChargeResolutionStarted', data: { ...resolution, kind: 'refund', amount: 990, currency: 'GBP', organization_id: ORG, customer_id: CUS, target_invoice_id: null, key: 'refund-r1', reason: 'Back', started_at: T0 } },
          { type: 'ChargeRefunded', data: { ...resolution, refund_ref: 're_1', amount: 990, currency: 'GBP', reason: 'Back', refunded_at: T0 } },
        ], { orgId: ORG }),
      ]).then({
        billing_charges: [
          row('ch_c', { provider: 'sandbox', applied: 5000, found: true, since: at(2) }),
          row('ch_d', { charged: 990, since: at(5), resolved: { kind: 'refund', resolution_id: 'r1', amount: 990, reason: 'Back', at: T0, refund_ref: 're_1', invoice_id: null, payment_id: null } }),
        ],
        billing_charge_sources: [
          { invoice_id: INV, customer_id: CUS, organization_id: ORG, amount: 990, currency: 'GBP' },
          invoiceSource,
        ],
      });
    });
  });
}
