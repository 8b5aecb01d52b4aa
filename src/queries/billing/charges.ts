// billing.refunds-due.list and the other readers of billing_charges (written by projections/billing/charges.ts): the provider
// charges taken but not (fully) applied, what is due back on each and why, for billing staff to refund or apply elsewhere.
import type { Knex } from 'knex';
import { operation } from '../../contract/operation.ts';
import type { RequestContext } from '../../context.ts';
import { ChargeRef, type RefundDueItem, RefundDueListRequest, RefundDueListResponse } from '../../contract/schemas/billing-charges.ts';
import { REFUND_DUE_TEXT } from '../../domain/billing/charge.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { type ChargeDoc, chargeStatus } from '../../projections/billing/charges.ts';
import { cursorParts, cursorShape, keysetPage } from '../pagination.ts';
import { getCustomerDoc } from './customers.ts';

/** Statuses the refunds-due list shows: money is due back (a resolution may be in flight). */
const DUE = ['due', 'resolving'];

/** The service's record of a charge, or null when it knows none. */
export async function chargeDoc(knex: Knex, chargeRef: string): Promise<ChargeDoc | null> {
  const row = await knex('billing_charges').where({ id: chargeRef }).first('doc');
  return row ? (row.doc as ChargeDoc) : null;
}

/** How many charges have money due back now (the `billing_refunds_due` gauge). */
export async function refundsDueCount(knex: Knex): Promise<number> {
  const rows = await knex('billing_charges').whereIn('status', DUE).count({ n: '*' });
  return Number(rows[0]?.n ?? 0);
}

/** The charges with money due back, oldest due first (at most `cap`): what the Needs attention list gathers. */
export async function dueCharges(knex: Knex, cap: number): Promise<ChargeDoc[]> {
  const rows = (await knex('billing_charges').whereIn('status', DUE).orderBy('since').orderBy('id').limit(cap).select('doc')) as { doc: ChargeDoc }[];
  return rows.map((r) => r.doc);
}

/** A charge as the refunds-due list shows it, with its customer's name. */
export async function refundDueItem(ctx: Pick<RequestContext, 'services'>, d: ChargeDoc, names = new Map<string, string | null>()): Promise<RefundDueItem> {
  const { status, due } = chargeStatus(d);
  let customer: RefundDueItem['customer'] = null;
  if (d.customer_id !== null) {
    if (!names.has(d.customer_id)) names.set(d.customer_id, (await getCustomerDoc(ctx.services.db, d.customer_id))?.name ?? null);
    customer = { id: d.customer_id, name: names.get(d.customer_id) ?? null };
  }
  const charged = d.charged ?? 0;
  return {
    charge_ref: d.charge_ref,
    provider: d.provider,
    customer,
    organization_id: d.organization_id,
    invoice: d.invoice_id === null ? null : { id: d.invoice_id, number: d.invoice_number },
    amount_charged: charged,
    amount_applied: Math.min(d.applied, charged),
    amount_due: due?.amount ?? 0,
    currency: d.currency ?? '',
    why: due ? { code: due.code, text: REFUND_DUE_TEXT[due.code] } : null,
    since: due ? d.since : null,
    status,
    resolution: d.resolved && {
      kind: d.resolved.kind, amount: d.resolved.amount, reason: d.resolved.reason, at: d.resolved.at,
      refund_ref: d.resolved.refund_ref, invoice_id: d.resolved.invoice_id, payment_id: d.resolved.payment_id,
    },
  };
}

/** A charge billing staff may act on (every charge is theirs to see); an unknown reference is 404. */
export async function visibleCharge(ctx: Pick<RequestContext, 'services'>, chargeRef: string): Promise<ChargeDoc> {
  const doc = await chargeDoc(ctx.services.knex, chargeRef);
  if (!doc || doc.charged === null) throw billingErrors.error('charge_not_found', `No charge ${chargeRef} is known to the service.`);
  return doc;
}

/** billing.refunds-due.list */
export const refundsDueList = operation({
  id: 'billing.refunds-due.list',
  examples: {
    request: { customer_id: '0193a7a1-3f4c-7cb7-8452-4e44dfdad329' },
    response: {
      items: [
        {
          charge_ref: 'charge_ref',
          provider: 'provider',
          customer: null,
          organization_id: null,
          invoice: null,
          amount_charged: 12000,
          amount_applied: 12000,
          amount_due: 12000,
          currency: 'GBP',
          why: null,
          since: null,
          status: 'due',
          resolution: null,
        },
      ],
      pagination: null,
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: 'Lists provider charges taken but not (fully) applied: what is due back to each customer, why and since when, oldest first.',
  description:
    'A row appears when a payment page attempt or automatic collection charged more than its invoice still owed (paid or voided meanwhile), '
    + 'or when reconciliation found a charge at the provider the service never recorded; it leaves the list once refunded (billing.refunds-due.refund) '
    + 'or applied to another open invoice of the customer (billing.refunds-due.apply).',
  request: RefundDueListRequest,
  response: RefundDueListResponse,
  error: 'billing.RefundDueListError',
  errors: billingErrors.list('invalid_cursor'),
  access: 'billing_staff',
  async handle(ctx, req) {
    const q = ctx.services.knex('billing_charges').whereIn('status', DUE).select('id', 'since', 'doc');
    if (req.customer_id) q.where('customer_id', req.customer_id);
    const res = await keysetPage<{ id: string; since: Date; doc: ChargeDoc }>(q, {
      columns: ['since', 'id'],
      shape: cursorShape(cursorParts.instant, ChargeRef),
      limit: req.limit,
      cursor: req.cursor,
      key: (r) => [new Date(r.since).toISOString(), r.id],
    });
    const names = new Map<string, string | null>();
    const items: RefundDueItem[] = [];
    for (const r of res.rows) items.push(await refundDueItem(ctx, r.doc, names));
    return { items, pagination: res.pagination };
  },
});

/** Read operations of refunds due. */
export const billingChargeQueries = [refundsDueList];
