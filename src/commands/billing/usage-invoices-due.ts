// billing.invoices.generate-due (internal): the usage invoice worker's generation of one subscription's draft for one ended
// month, as the system. The same generation as billing.invoices.generate (generateUsageInvoice), without the staff answer.
import { operation } from '../../contract/operation.ts';
import { UsageInvoiceDueRequest, UsageInvoiceDueResult, UsageRefusalRecordRequest } from '../../contract/schemas/billing-system.ts';
import { Empty } from '../../contract/schemas/common.ts';
import { billingErrors } from '../../domain/billing/errors.ts';
import { usageMonths } from './handlers.ts';
import { generateUsageInvoice, invoicesGenerate } from './usage-invoices.ts';

/** billing.invoices.generate-due */
export const invoicesGenerateDue = operation({
  id: 'billing.invoices.generate-due',
  surface: 'internal',
  tags: ['Billing'],
  summary: 'Generates the usage invoice of a subscription for a month that has ended (the usage invoice worker).',
  description: 'Internal: invoked by the usage invoice worker as the system (job `usage-invoices-worker`); refuses as billing.invoices.generate does.',
  request: UsageInvoiceDueRequest,
  response: UsageInvoiceDueResult,
  error: 'billing.InvoiceGenerateError',
  errors: invoicesGenerate.errors,
  access: 'system',
  write: true,
  async handle(ctx, req) {
    const { invoiceId, kind } = await generateUsageInvoice(ctx, req.subscription_id, req.period);
    return { invoice_id: invoiceId, kind };
  },
});

/** billing.usage.refusals.record */
export const usageRefusalsRecord = operation({
  id: 'billing.usage.refusals.record',
  surface: 'internal',
  tags: ['Billing'],
  summary: 'Records why the usage invoice worker could not invoice a subscription month (listed by billing.usage.refusals.list until the month is invoiced).',
  description: 'Internal: invoked by the usage invoice worker as the system. The same reason again (code and issues) records nothing.',
  request: UsageRefusalRecordRequest,
  response: Empty,
  error: 'billing.UsageRefusalRecordError',
  errors: billingErrors.list('invalid_request'),
  access: 'system',
  write: true,
  async handle(ctx, req) {
    const { subscription_id, period, code, message, issues } = req;
    await usageMonths.run(ctx, { subscription_id, period }, { type: 'RecordRefusal', data: { subscription_id, period, code, message, issues } });
    return {};
  },
});

/** Internal operations of usage invoices. */
export const billingUsageInvoiceSystemCommands = [invoicesGenerateDue, usageRefusalsRecord];
