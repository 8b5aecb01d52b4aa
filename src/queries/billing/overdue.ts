// billing.invoices.overdue-status.get: past-due receivables (statements read model) and access (access read model), through their query modules.
import { operation } from '../../contract/operation.ts';
import { forbidden } from '../../domain/errors.ts';
import { callerOrg, hasRole } from '../../context.ts';
import { isoDate } from '../../clock.ts';
import { InvoiceOverdueStatusRequest, InvoiceOverdueStatusResponse } from '../../contract/schemas/billing-statements.ts';
import { daysBetween, pastDue, suspensionDate } from '../../domain/billing/access.ts';
import { accessOf } from './access.ts';
import { unpaidInvoices } from './statements.ts';
import { caughtUp } from '../../pipeline/read-models.ts';
import { customerOfOrganization } from './customers.ts';
import { billingStatementsProjection } from '../../projections/billing/statements.ts';
import { billingAccessProjection } from '../../projections/billing/access.ts';
import { billingErrors } from '../../domain/billing/errors.ts';

/** Where an organization pays: a page of this service (the sandbox payment provider's hosted page). */
export function paymentUrl(appUrl: string, customerId: string): string {
  return `${appUrl}/billing/pay/${customerId}`;
}

export const invoicesOverdueStatusGet = operation({
  id: 'billing.invoices.overdue-status.get',
  examples: {
    request: { organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679' },
    response: {
      organization_id: '0193472c-1f99-732d-8f1b-0abb219cd679',
      customer_id: null,
      as_of: '2026-01-15',
      past_due: false,
      invoices: [
        {
          id: '019387ea-5dfc-7b8e-884d-848979496e70',
          number: 'INV-2026-0042',
          due_date: '2026-01-15',
          days_past_due: 12000,
          currency: 'GBP',
          amount_remaining: 12000,
        },
      ],
      amount_past_due: [{ amount: 12000, currency: 'GBP' }],
      grace_days: 30,
      suspension_date: null,
      suspended: false,
      suspended_at: null,
      payment_url: 'payment url',
    },
  },
  surface: 'core',
  tags: ['Billing'],
  summary: "For the caller's organization: past-due invoices, the amount past due, when access is suspended for non-payment, and a payment link.",
  description:
    'An invoice is past due when it is open and its due date is before today (UTC). Access is suspended from the due date of the oldest past-due ' +
    'invoice plus OVERDUE_GRACE_DAYS (default 14) and restored once that debt is paid; a background worker records both as events.',
  request: InvoiceOverdueStatusRequest,
  response: InvoiceOverdueStatusResponse,
  error: 'billing.InvoiceOverdueStatusError',
  errors: billingErrors.list('forbidden'),
  access: 'org_user',
  async handle(ctx, req) {
    const own = callerOrg(ctx.auth);
    const organizationId = req.organization_id ?? own;
    if (!organizationId) throw forbidden('Sign in to an organization first.');
    if (organizationId !== own && !hasRole(ctx.auth, 'billing_staff')) throw forbidden("Only billing staff may read another organization's overdue status.");
    await caughtUp(ctx.services, [billingStatementsProjection, billingAccessProjection]);
    const knex = ctx.services.knex;
    const today = isoDate(ctx.now);
    const grace = ctx.services.config.overdueGraceDays;
    const customer = await customerOfOrganization(knex, organizationId);
    const unpaid = customer ? await unpaidInvoices(knex, customer.id) : [];
    const due = pastDue(unpaid, today);
    const totals = new Map<string, number>();
    for (const i of due) totals.set(i.currency, (totals.get(i.currency) ?? 0) + i.amount_remaining);
    const access = customer ? await accessOf(knex, customer.id) : undefined;
    return {
      organization_id: organizationId,
      customer_id: customer?.id ?? null,
      as_of: today,
      past_due: due.length > 0,
      invoices: due.map((i) => ({ id: i.invoice_id, number: i.number ?? '', due_date: i.due_date, days_past_due: daysBetween(i.due_date, today), currency: i.currency, amount_remaining: i.amount_remaining })),
      amount_past_due: [...totals].sort(([a], [b]) => a.localeCompare(b)).map(([currency, amount]) => ({ amount, currency })),
      grace_days: grace,
      suspension_date: access?.suspended ? access.suspension_date : (suspensionDate(unpaid, today, grace)?.date ?? null),
      suspended: access?.suspended ?? false,
      suspended_at: access?.suspended ? access.suspended_at : null,
      payment_url: customer ? paymentUrl(ctx.services.config.appUrl, customer.id) : null,
    };
  },
});

/** Read operations of overdue status. */
export const billingOverdueQueries = [invoicesOverdueStatusGet];
