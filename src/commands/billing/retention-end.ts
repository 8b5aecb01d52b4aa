// billing.customers.end-retention (internal): the retention worker's work on one erased customer whose invoice retention
// period ended: the retention key is deleted first, then RetainedDataErased recorded (a retry after a crash in between
// deletes the already deleted key again and appends). Repeating it is a no-op.
import { operation } from '../../contract/operation.ts';
import { RetentionEndDone, RetentionEndRequest } from '../../contract/schemas/billing-erasure.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { customers } from './handlers.ts';
import { billingCustomersProjection } from '../../projections/billing/customers.ts';
import { billingEventsProjection } from '../../projections/billing/events.ts';
import { billingWebhookOutboxProjection } from '../../projections/billing/webhook-outbox.ts';
import { compactFreedSpace } from '../platform/erasure-traces.ts';
import { forgetCustomerDocuments } from '../../queries/billing/documents.ts';

/** billing.customers.end-retention */
export const customersEndRetention = operation({
  id: 'billing.customers.end-retention',
  surface: 'internal',
  tags: ['Billing'],
  summary: 'Erases what an erased customer kept for tax law (legal name, address, VAT number) once the invoice retention period ended.',
  description: 'Internal: invoked by the retention worker as the system (job `retention-worker`).',
  request: RetentionEndRequest,
  response: RetentionEndDone,
  error: 'billing.RetentionEndError',
  errors: billingErrors.list('customer_not_found'),
  access: 'system',
  write: true,
  readModels: [billingCustomersProjection, billingEventsProjection, billingWebhookOutboxProjection],
  async handle(ctx, req) {
    const orgId = ctx.auth.organizationId ?? '';
    const state = await customers.load(ctx, req.customer_id);
    const until = state.erasure?.retained_until ?? null;
    const kept = state.erasure?.retained ?? [];
    if (until === null || kept.length === 0 || ctx.now.toISOString().slice(0, 10) < until) return { changed: false };
    await ctx.services.personalData.eraseSubjects(kept, ctx.now);
    const res = await customers.run(ctx, req.customer_id, { type: 'EndRetention', data: {} }, { orgId, reason: 'invoice retention period over' });
    await ctx.readYourWrites();
    // The PDFs rendered with the kept particulars go, and the embedded database's files lose the rows' old versions (issue 32).
    if (res.events.length > 0) {
      await forgetCustomerDocuments(ctx.services.knex, ctx.services.objects, req.customer_id);
      await compactFreedSpace(ctx.services.db);
    }
    return { changed: res.events.length > 0 };
  },
});
