// billing.customer-access.review (internal): the overdue policy applied to one customer, as the overdue worker invokes it. The
// access decider suspends an organization's access when its suspension date arrives and restores it once the debt is paid, so a
// repeated review is a no-op.
import { addDays, isoDate } from '../../clock.ts';
import { operation } from '../../contract/operation.ts';
import { CustomerAccessReviewRequest, CustomerAccessReviewed } from '../../contract/schemas/billing-system.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { unpaidInvoices } from '../../queries/billing/statements.ts';
import { customerAccess } from './handlers.ts';

/** billing.customer-access.review */
export const customerAccessReview = operation({
  id: 'billing.customer-access.review',
  surface: 'internal',
  tags: ['Billing'],
  summary: "Applies the overdue policy to a customer's access: suspends it past the grace period, restores it once paid.",
  description: 'Internal: invoked by the overdue worker as the system (job `overdue-worker`) for the customer\'s organization.',
  request: CustomerAccessReviewRequest,
  response: CustomerAccessReviewed,
  error: 'billing.CustomerAccessReviewError',
  errors: billingErrors.list(),
  access: 'system',
  write: true,
  async handle(ctx, req) {
    const organizationId = ctx.auth.organizationId ?? '';
    const today = isoDate(ctx.now);
    const grace = ctx.services.config.overdueGraceDays;
    const unpaid = await unpaidInvoices(ctx.services.knex, req.customer_id);
    const res = await customerAccess.run(ctx, req.customer_id, {
      type: 'ReviewAccess',
      data: { customer_id: req.customer_id, organization_id: organizationId, today, grace_days: grace, unpaid },
    }, { orgId: organizationId, reason: 'overdue policy review' });
    const last = res.events.at(-1);
    return { changed: last ? (last.type === 'AccessSuspended' ? ('suspended' as const) : ('restored' as const)) : null };
  },
});

/** The first day whose unpaid invoices due on or before it are overdue under the policy on `today`. */
export function overdueDueBy(today: string, graceDays: number): string {
  // due_date + grace <= today  <=>  due_date <= today - grace
  return addDays(today, -graceDays);
}

/** Billing's internal operation of the overdue policy. */
export const billingAccessReviewCommands = [customerAccessReview];
