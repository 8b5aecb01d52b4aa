// Helpers for billing suites: a customer per organization, drafts, finalized invoices and payments over HTTP.
import { expect } from 'chai';
import { createSession } from '../../src/commands/identity/identity.ts';
import type { RequestOf, ReplyOf, TestService } from './app.ts';

type InvoiceInsert = RequestOf<(typeof ops)['billing.invoices.insert']>;
type PaymentInsert = RequestOf<(typeof ops)['billing.payments.insert']>;
/** An invoice as billing.invoices.get answers it. */
export type Invoice = ReplyOf<(typeof ops)['billing.invoices.get']>['body'];
import { ops } from './ops.ts';

/** A session that outlives suites moving the clock by months. */
async function yearLongToken(svc: TestService, userId: string, organizationId: string): Promise<string> {
  return (await createSession(svc.app.knex, { userId, organizationId, now: svc.clock.now(), ttlHours: 24 * 366 })).token;
}

/** Signs up a billing staff user; returns a year-long token. */
export async function billingStaff(svc: TestService): Promise<string> {
  const u = await svc.signUp({ kind: 'platform', role: 'member', staff: ['billing_staff'] });
  return yearLongToken(svc, u.userId, u.orgId);
}

/** A signed-up organization with its billing customer. */
export interface BilledOrg {
  orgId: string;
  token: string;
  customerId: string;
}

/** Signs up an organization and creates its billing customer. */
export async function billedOrg(svc: TestService, opts: { currency?: string; payment_terms_days?: number } = {}): Promise<BilledOrg> {
  const u = await svc.signUp();
  const token = await yearLongToken(svc, u.userId, u.orgId);
  const c = await svc.call(ops['billing.customers.insert'], { name: `Customer of ${u.orgId.slice(0, 8)}`, email: 'ap@example.com', currency: opts.currency ?? 'GBP', payment_terms_days: opts.payment_terms_days ?? 30 }, token);
  expect(c.status, JSON.stringify(c.body)).to.equal(200);
  return { orgId: u.orgId, token, customerId: c.body.id };
}

/** Drafts an invoice as staff; `amounts` become one line each. */
export async function draft(svc: TestService, staffToken: string, customerId: string, amounts: number[] = [1000], extra: Partial<InvoiceInsert> = {}): Promise<Invoice> {
  const lines = amounts.map((a, i) => ({ description: `Line ${i + 1}`, unit_amount: a }));
  const r = await svc.call(ops['billing.invoices.insert'], { customer_id: customerId, lines, ...extra }, staffToken);
  expect(r.status, JSON.stringify(r.body)).to.equal(200);
  return r.body;
}

/** Drafts and finalizes an invoice as staff. */
export async function openInvoice(svc: TestService, staffToken: string, customerId: string, amounts: number[] = [1000], extra: Partial<InvoiceInsert> = {}): Promise<Invoice> {
  const d = await draft(svc, staffToken, customerId, amounts, extra);
  const r = await svc.call(ops['billing.invoices.update'], { id: d.id, action: 'finalize' }, staffToken);
  expect(r.status, JSON.stringify(r.body)).to.equal(200);
  return r.body;
}

/** A payment body for an invoice. */
export function paymentBody(invoiceId: string, amount: number, extra: Partial<PaymentInsert> = {}): PaymentInsert {
  return { invoice_id: invoiceId, amount, currency: 'GBP', method: 'bank_transfer', reference: `BACS ${amount}`, received_on: '2026-03-10', ...extra };
}
